// Catches double submission of an ASYNC provider job (class pollable) around a worker crash:
// once the external job id is recorded, recovery polls it and never submits again; a crash
// before the id was recorded leaves a job the provider may have started, so it goes to review.
// Its rows of the crash-point table; the shared runner is crash-matrix.case.ts.
import { commonRows, describeCrashMatrix } from '../testing/crash-matrix.case.js';

describeCrashMatrix('async', [
  {
    point: 'after-claim',
    expected: {
      state: 'succeeded',
      units: 1,
      billed: [1],
      requests: 1,
      attempts: 2,
      externalJobs: 1,
    },
  },
  {
    point: 'after-call-intent',
    expected: {
      state: 'needs_review',
      units: 1,
      billed: [0],
      requests: 0,
      attempts: 2,
      externalJobs: 0,
    },
  },
  {
    // Submitted and billed, the id never recorded: needs review, one external job.
    point: 'after-request-sent',
    expected: {
      state: 'needs_review',
      units: 1,
      billed: [1],
      requests: 1,
      attempts: 2,
      externalJobs: 1,
    },
  },
  {
    // The id was recorded before waiting: B polls it, one external job.
    point: 'after-external-id',
    expected: {
      state: 'succeeded',
      units: 1,
      billed: [1],
      requests: 1,
      attempts: 2,
      externalJobs: 1,
      bExecutes: ['u0'],
    },
  },
  {
    point: 'commit-then-drop',
    expected: {
      state: 'needs_review',
      units: 1,
      billed: [1],
      requests: 1,
      attempts: 1,
      externalJobs: 1,
    },
  },
  ...commonRows(),
]);
