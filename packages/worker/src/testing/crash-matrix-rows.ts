// The crash-point table: for each call class, each crash point and the end state a takeover must
// reach. One table for every runtime: the worker's own test files run it on the embedded runtime,
// each runtime package runs the same rows on its transport (crash-matrix.case.ts runs them).
import type { Expected, MatrixCall, MatrixPoint } from './crash-matrix.case.js';

export interface MatrixRow {
  point: MatrixPoint;
  expected: Expected;
}

/** The rows every class shares (the table's columns agree on them). */
export function commonRows(): MatrixRow[] {
  return [
    {
      point: 'after-call-outcome',
      expected: { state: 'succeeded', units: 1, billed: [1], requests: 1, attempts: 2 },
    },
    {
      // The bytes are in A's staging key: B publishes its own, A's staging blob is swept.
      point: 'after-blob-write-before-publish',
      expected: { state: 'succeeded', units: 1, billed: [1], requests: 1, attempts: 2, assets: 1 },
    },
    {
      point: 'after-unit-checkpoint',
      expected: {
        state: 'succeeded',
        units: 2,
        billed: [1, 1],
        requests: 2,
        attempts: 2,
        bExecutes: ['u1'],
      },
    },
    {
      point: 'after-terminal-before-ack',
      expected: {
        state: 'succeeded',
        units: 1,
        billed: [1],
        requests: 1,
        attempts: 1,
        bExecutes: [],
        finalizeRuns: 1,
      },
    },
    {
      point: 'during-finalize',
      expected: {
        state: 'succeeded',
        units: 2,
        billed: [1, 1],
        requests: 2,
        attempts: 2,
        bExecutes: [],
        finalizeRuns: 2,
      },
    },
  ];
}

// SYNC provider call (class ambiguous): a crash that leaves it open whether the provider billed
// parks the job for a person; one that provably happened before sending, or after the answer was
// kept, recovers by itself.
const SYNC_ROWS: readonly MatrixRow[] = [
  {
    point: 'after-claim',
    expected: {
      state: 'succeeded',
      units: 1,
      billed: [1],
      requests: 1,
      attempts: 2,
      // A transport whose claim only hands the message out: A wrote nothing, B starts attempt 1.
      attemptsUnstartedClaim: 1,
    },
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
];

// ASYNC provider job (class pollable): once the external job id is recorded, recovery polls it
// and never submits again; a crash before the id was recorded leaves a job the provider may have
// started, so it goes to review.
const ASYNC_ROWS: readonly MatrixRow[] = [
  {
    point: 'after-claim',
    expected: {
      state: 'succeeded',
      units: 1,
      billed: [1],
      requests: 1,
      attempts: 2,
      // A transport whose claim only hands the message out: A wrote nothing, B starts attempt 1.
      attemptsUnstartedClaim: 1,
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
];

// Retry-safe call: every resend carries the same idempotency key, so the provider deduplicates
// it (one bill), and a crash anywhere ends in success without a person.
const SAFE_ROWS: readonly MatrixRow[] = [
  {
    point: 'after-claim',
    expected: {
      state: 'succeeded',
      units: 1,
      billed: [1],
      requests: 1,
      attempts: 2,
      // A transport whose claim only hands the message out: A wrote nothing, B starts attempt 1.
      attemptsUnstartedClaim: 1,
    },
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
];

/** The rows of one call class: its own points, then the ones every class shares. */
export function crashMatrixRows(call: MatrixCall): MatrixRow[] {
  const own = { sync: SYNC_ROWS, async: ASYNC_ROWS, safe: SAFE_ROWS }[call];
  return [...own, ...commonRows()];
}
