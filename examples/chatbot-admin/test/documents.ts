// The documents the end-to-end tests upload, generated here: a two-page PDF (pdf-lib) with a
// price table and opening hours, and an XLSX (exceljs) with a price sheet.
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';

export const PDF_PAGES = [
  [
    'Plans and prices.',
    'Plan | Price | Seats',
    'Starter | 9 EUR per month | 1',
    'Team | 49 EUR per month | 10',
    'Enterprise | 199 EUR per month | 100',
    'Every plan can be cancelled at the end of a month.',
  ],
  [
    'Opening hours.',
    'Our support desk is open Monday to Friday from 9:00 to 17:00.',
    'Refunds are paid within fourteen days of a return.',
  ],
];

export async function makePdf(pages = PDF_PAGES): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([595, 842]);
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 22, size: 12, font }));
  }
  return doc.save();
}

export async function makeXlsx(): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Shipping');
  sheet.addRows([
    ['Country', 'Delivery time', 'Cost'],
    ['Germany', '2 days', '4.90 EUR'],
    ['France', '3 days', '6.90 EUR'],
    ['Japan', '9 days', '24.00 EUR'],
  ]);
  return new Uint8Array(await book.xlsx.writeBuffer());
}
