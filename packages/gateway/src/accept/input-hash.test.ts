// The direct canonical serializer must give exactly the text of the replacer form it replaced:
// hashes of jobs stored before the change must still match a retried submit (idempotency),
// or the retry would be answered CONFLICT. Also: pooled job-id bytes are never handed out twice.
import fc from 'fast-check';
import { formatJobId, JOB_ID_PATTERN } from '@sluice/contracts';
import { expect, it } from 'vitest';
import { canonicalJson, pooledRandomBytes } from './input-hash.js';

/** The previous implementation, kept as the reference. */
function replacerForm(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

const awkwardKeys = fc.oneof(
  fc.string(),
  fc.constantFrom('__proto__', '0', '1', '10', '9', '01', '-1', '4294967295', '4294967294', 'a'),
);

const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue(),
    fc.constantFrom(undefined, NaN, Infinity, -0, 1e21, '\ud800'),
    fc.date({ noInvalidDate: true }),
    fc.array(tie('value')),
    fc.dictionary(awkwardKeys, tie('value')),
  ),
})).value;

it('serializes exactly like the replacer form, quirks included', () => {
  fc.assert(
    fc.property(values, (v) => {
      expect(canonicalJson(v)).toBe(replacerForm(v));
    }),
    { numRuns: 2000 },
  );
  for (const v of [
    { b: 1, a: { d: [2, { y: 1, x: 0 }], c: null } },
    JSON.parse('{"__proto__":{"x":1},"10":1,"9":2,"b":3}'),
    { toJSON: () => ({ z: 1, y: [undefined, () => 1] }) },
    [undefined, Symbol('s'), new Date(0)],
    Object.assign(Object.create({ inherited: 1 }) as object, { own: 2 }),
  ]) {
    expect(canonicalJson(v)).toBe(replacerForm(v));
  }
});

it('hands out every pooled random byte once', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const id = formatJobId('v1', pooledRandomBytes);
    expect(id).toMatch(JOB_ID_PATTERN);
    seen.add(id);
  }
  expect(seen.size).toBe(2000);
  // Views never overlap: filling one leaves the next untouched.
  const a = pooledRandomBytes(17);
  const b = pooledRandomBytes(17);
  const before = Array.from(b);
  a.fill(0);
  expect(Array.from(b)).toEqual(before);
});
