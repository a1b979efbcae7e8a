// What a document's first bytes say it is. Shared by the worker (which trusts nothing else) and
// the upload form (which refuses a mislabelled file before sending a byte).
export type Format = 'pdf' | 'xlsx' | 'csv';

export const FORMAT_BY_EXTENSION: Record<string, Format> = { pdf: 'pdf', xlsx: 'xlsx', csv: 'csv' };

/** `%PDF-`, a ZIP container (XLSX), or text without NUL bytes (CSV). */
export function sniffFormat(head: Uint8Array): Format | undefined {
  const ascii = String.fromCharCode(...head.subarray(0, 5));
  if (ascii === '%PDF-') return 'pdf';
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return 'xlsx';
  if (head.length > 0 && !head.subarray(0, 512).includes(0)) return 'csv';
  return undefined;
}
