// Catches a retry-safe call that is not really retried safely around a worker crash: every
// resend carries the same idempotency key, so the provider deduplicates it (one bill), and a
// crash anywhere ends in success without a person. Its rows of the crash-point table; the
// shared runner is crash-matrix.case.ts.
import { commonRows, describeCrashMatrix } from '../testing/crash-matrix.case.js';

describeCrashMatrix('safe', [
  {
    point: 'after-claim',
    expected: { state: 'succeeded', units: 1, billed: [1], requests: 1, attempts: 2 },
  },
  {
    point: 'after-call-intent',
    expected: { state: 'succeeded', units: 1, billed: [1], requests: 1, attempts: 2 },
  },
  {
    // The provider billed the first request; the resend with the same key is deduplicated.
    point: 'after-request-sent',
    expected: {
      state: 'succeeded',
      units: 1,
      billed: [1],
      requests: 2,
      attempts: 2,
      deduplicated: 1,
    },
  },
  {
    point: 'commit-then-drop',
    expected: {
      state: 'succeeded',
      units: 1,
      billed: [1],
      requests: 2,
      attempts: 1,
      deduplicated: 1,
    },
  },
  ...commonRows(),
]);
