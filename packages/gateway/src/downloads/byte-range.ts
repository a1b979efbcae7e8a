// `Range: bytes=…` against a body of `size` bytes (RFC 9110 §14). One range only: a multi-range
// request is answered whole (a server may ignore Range), as is anything that is not a byte range.

export type RangeDecision =
  | { kind: 'whole' }
  | { kind: 'partial'; offset: number; length: number }
  | { kind: 'unsatisfiable' };

const SINGLE = /^bytes=(\d*)-(\d*)$/;

export function decideRange(header: string | undefined, size: number): RangeDecision {
  if (header === undefined) return { kind: 'whole' };
  const m = SINGLE.exec(header.trim());
  if (!m) return { kind: 'whole' };
  const [, first, last] = m as unknown as [string, string, string];
  if (first === '' && last === '') return { kind: 'whole' };
  if (first.length > 15 || last.length > 15) return { kind: 'unsatisfiable' };
  if (first === '') {
    // A suffix: the last N bytes.
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    const length = Math.min(n, size);
    return { kind: 'partial', offset: size - length, length };
  }
  const start = Number(first);
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return { kind: 'whole' }; // syntactically invalid: ignore the header
  return { kind: 'partial', offset: start, length: end - start + 1 };
}
