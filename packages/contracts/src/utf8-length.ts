// UTF-8 byte length of text checked against a bound. UTF-8 takes at most 3 bytes per UTF-16 unit,
// so text whose units times 3 stay within the bound needs no encoding to be known to fit: that is
// the common case on the hot paths that call this (every pointer encoded and decoded), and
// encoding there would allocate a buffer per field for nothing.

const encoder = new TextEncoder();

/**
 * The UTF-8 byte length of these strings together, or their UTF-16 length when that alone proves
 * the total is within `bound` (then the exact figure is not needed: the caller compares it with
 * the bound).
 */
export function utf8LengthWithin(values: readonly string[], bound: number): number {
  let units = 0;
  for (const v of values) units += v.length;
  if (units * 3 <= bound) return units;
  let total = 0;
  for (const v of values) total += encoder.encode(v).byteLength;
  return total;
}
