// What the bad-input fuzz suites send: strings a database cannot store (NUL, lone surrogates),
// binary and huge strings, extreme numbers, arbitrary JSON, and a valid input per procedure for
// swapping one field at a time.

import fc from 'fast-check';

const unstorable = fc
  .tuple(fc.string({ maxLength: 8 }), fc.constantFrom('\u0000', '\uD800', '\uDFFF', '\uDBFF'))
  .map(([a, b]) => a + b);
export const weirdString = fc.oneof(
  { arbitrary: unstorable, weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.constantFrom('', ' ', 'v1-', '../..', '%00', 'k'.repeat(300)), weight: 1 },
  { arbitrary: fc.string({ maxLength: 3000 }), weight: 1 },
);
const weirdNumber = fc.oneof(
  fc.integer(),
  fc.constantFrom(-1, 0, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 0.5),
);
export const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    weirdString,
    weirdNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(weirdString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A valid input for `path`, to swap one field of. */
export function sample(path: string, jobId: string): Record<string, unknown> {
  const samples: Record<string, Record<string, unknown>> = {
    'jobs.submit': { kind: 'demo.echo', input: { text: 'fuzz' }, idempotencyKey: 'k' },
    'jobs.list': { limit: 5, cursor: null, state: 'queued', kind: 'demo.echo' },
    'jobs.watch': { id: jobId, lastEventId: '1' },
    'jobs.watchAll': { kinds: ['demo.echo'], states: ['queued'] },
    'jobs.assetUrl': { id: jobId, name: 'out.txt', expiresInSeconds: 60 },
    'files.list': { limit: 5 },
    'files.signedUrl': { id: 'f_aaaaaaaaaaaaaaaaaaaaaaaaaa', expiresInSeconds: 60 },
    'files.get': { id: 'f_aaaaaaaaaaaaaaaaaaaaaaaaaa' },
    'files.delete': { id: 'f_aaaaaaaaaaaaaaaaaaaaaaaaaa' },
    'deadLetters.list': { limit: 5, kind: 'demo.echo' },
    'review.list': { limit: 5 },
    'review.approve': { id: jobId, note: 'fuzz' },
    'review.discard': { id: jobId, note: 'fuzz' },
    'schedules.create': {
      kind: 'demo.echo',
      input: { text: 'fuzz' },
      // Fires once a year, paused: a created schedule never makes a job during a run.
      cron: '0 0 1 1 *',
      timezone: 'Asia/Seoul',
      missed: 'skip',
      paused: true,
    },
    'schedules.list': { limit: 5 },
  };
  return samples[path] ?? { id: jobId };
}
