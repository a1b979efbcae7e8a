// prepare's real conversion: the document's bytes into units with stable keys and human labels.
// PDF text per page (pdfjs-dist, legacy build for Node), XLSX per sheet (exceljs), CSV in chunks
// of rows (csv-parse). The format is read from the bytes, not trusted from the filename, and a
// document that cannot be read is refused for good (a retry would read the same bytes).
import { NonRetriableError } from '@sluice/contracts';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { sniffFormat, type Format } from './sniff.js';

export type { Format };

export interface DocUnit {
  key: string;
  label: string;
  /** Plain text of the unit (what the model reads). */
  text: string;
  /** Cells, for spreadsheets (the first row is the header). */
  rows?: string[][];
}

export const MAX_UNITS = 200;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

async function pdfUnits(bytes: Uint8Array): Promise<DocUnit[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = pdfjs.getDocument({
    // pdfjs refuses a Buffer: a plain Uint8Array view over the same bytes.
    data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    useSystemFonts: false,
    verbosity: 0,
  });
  // The loading task owns the document and its worker: destroying it releases both.
  try {
    const doc = await task.promise;
    const units: DocUnit[] = [];
    for (let n = 1; n <= Math.min(doc.numPages, MAX_UNITS); n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      // Items carry their own line ends (hasEOL): join them back into lines.
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : '');
      }
      units.push({ key: `page-${pad(n)}`, label: `Page ${n}`, text: text.trim() });
    }
    return units;
  } finally {
    await task.destroy();
  }
}

const cellText = (value: ExcelJS.CellValue): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') {
    if (value instanceof Date) return value.toISOString().slice(0, 10);
    if ('result' in value) return String(value.result ?? '');
    if ('text' in value) return String(value.text);
    if ('richText' in value) return value.richText.map((r) => r.text).join('');
    return '';
  }
  return String(value);
};

async function xlsxUnits(bytes: Uint8Array): Promise<DocUnit[]> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes as unknown as ArrayBuffer);
  const units: DocUnit[] = [];
  book.eachSheet((sheet, id) => {
    const rows: string[][] = [];
    sheet.eachRow((row) => {
      const values = (row.values as ExcelJS.CellValue[]).slice(1).map(cellText);
      if (values.some((v) => v.trim() !== '')) rows.push(values);
    });
    if (rows.length === 0) return;
    units.push({
      key: `sheet-${pad(id)}`,
      label: `Sheet ${sheet.name}`,
      text: rows.map((r) => r.join(' | ')).join('\n'),
      rows,
    });
  });
  return units.slice(0, MAX_UNITS);
}

function csvUnits(bytes: Uint8Array, perUnit: number): DocUnit[] {
  let records: string[][];
  try {
    records = parseCsv(Buffer.from(bytes), {
      skip_empty_lines: true,
      relax_column_count: true,
      bom: true,
    });
  } catch (error) {
    throw new NonRetriableError(`not a readable CSV: ${(error as Error).message}`);
  }
  const [header, ...body] = records;
  if (!header) return [];
  const units: DocUnit[] = [];
  for (let i = 0; i < body.length && units.length < MAX_UNITS; i += perUnit) {
    const chunk = body.slice(i, i + perUnit);
    const rows = [header, ...chunk];
    units.push({
      key: `rows-${pad(i + 1, 5)}`,
      label: `Rows ${i + 1}–${i + chunk.length}`,
      text: rows.map((r) => r.join(' | ')).join('\n'),
      rows,
    });
  }
  return units;
}

/** The document's units, or a NonRetriableError naming what is wrong with it. */
export async function convertDocument(
  bytes: Uint8Array,
  opts: { csvRowsPerUnit: number },
): Promise<{ format: Format; units: DocUnit[] }> {
  const format = sniffFormat(bytes);
  if (!format) throw new NonRetriableError('not a PDF, XLSX or CSV document');
  let units: DocUnit[];
  try {
    units =
      format === 'pdf'
        ? await pdfUnits(bytes)
        : format === 'xlsx'
          ? await xlsxUnits(bytes)
          : csvUnits(bytes, opts.csvRowsPerUnit);
  } catch (error) {
    if (error instanceof NonRetriableError) throw error;
    throw new NonRetriableError(
      `the ${format.toUpperCase()} could not be read: ${(error as Error).message}`,
    );
  }
  if (units.every((u) => u.text.trim() === '')) {
    throw new NonRetriableError(`the ${format.toUpperCase()} has no text to learn from`);
  }
  return { format, units: units.filter((u) => u.text.trim() !== '') };
}
