// Catches double billing and lost work around a worker crash, for a SYNC provider call (class
// ambiguous): a crash that leaves it open whether the provider billed parks the job for a
// person; one that provably happened before sending, or after the answer was kept, recovers by
// itself. Its rows of the crash-point table; the shared runner is crash-matrix.case.ts.
import { commonRows, describeCrashMatrix } from '../testing/crash-matrix.case.js';

describeCrashMatrix('sync', [
  {
    point: 'after-claim',
    expected: { state: 'succeeded', units: 1, billed: [1], requests: 1, attempts: 2 },
  },
  {
    point: 'after-call-intent',
    expected: { state: 'needs_review', units: 1, billed: [0], requests: 0, attempts: 2 },
  },
  {
    point: 'after-request-sent',
    expected: { state: 'needs_review', units: 1, billed: [1], requests: 1, attempts: 2 },
  },
  {
    point: 'commit-then-drop',
    expected: { state: 'needs_review', units: 1, billed: [1], requests: 1, attempts: 1 },
  },
  ...commonRows(),
]);
