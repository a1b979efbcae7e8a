// prepare's conversion on real documents: a generated PDF read page by page with pdfjs, an XLSX
// sheet with exceljs, a CSV in row chunks; bytes that are none of them are refused for good.
import { isNonRetriableError } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { makePdf, makeXlsx } from '../../test/documents.js';
import { convertDocument } from './convert.js';

describe('convertDocument', () => {
  it('reads a PDF into one unit per page with its text lines', async () => {
    const { format, units } = await convertDocument(await makePdf(), { csvRowsPerUnit: 50 });
    expect(format).toBe('pdf');
    expect(units.map((u) => [u.key, u.label])).toEqual([
      ['page-01', 'Page 1'],
      ['page-02', 'Page 2'],
    ]);
    expect(units[0]!.text.split('\n')).toContain('Team | 49 EUR per month | 10');
    expect(units[1]!.text).toContain('open Monday to Friday');
  });

  it('reads an XLSX into one unit per sheet with its cells', async () => {
    const { format, units } = await convertDocument(await makeXlsx(), { csvRowsPerUnit: 50 });
    expect(format).toBe('xlsx');
    expect(units).toHaveLength(1);
    expect(units[0]).toMatchObject({ key: 'sheet-01', label: 'Sheet Shipping' });
    expect(units[0]!.rows?.[3]).toEqual(['Japan', '9 days', '24.00 EUR']);
  });

  it('reads a CSV in chunks of rows, each with the header', async () => {
    const csv = [
      'name,price',
      ...Array.from({ length: 12 }, (_, i) => `item ${i + 1},${i + 1}`),
    ].join('\n');
    const { units } = await convertDocument(new TextEncoder().encode(csv), { csvRowsPerUnit: 5 });
    expect(units.map((u) => u.label)).toEqual(['Rows 1–5', 'Rows 6–10', 'Rows 11–12']);
    expect(units[2]!.rows).toEqual([
      ['name', 'price'],
      ['item 11', '11'],
      ['item 12', '12'],
    ]);
  });

  it('refuses bytes that are no document, and a PDF cut short, for good', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]);
    await expect(convertDocument(png, { csvRowsPerUnit: 50 })).rejects.toSatisfy(
      isNonRetriableError,
    );
    const cut = (await makePdf()).slice(0, 300);
    const error = await convertDocument(cut, { csvRowsPerUnit: 50 }).catch((e: Error) => e);
    expect(isNonRetriableError(error)).toBe(true);
    expect((error as Error).message).toMatch(/^the PDF could not be read/);
  });
});
