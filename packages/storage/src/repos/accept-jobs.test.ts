// The accept path's group commit on SQLite and PostgreSQL; the cases are shared with the D1 run
// in workerd (accept-jobs.case.ts, workerd/storage-d1.test.ts).
import { describeEachDialect } from '../testing/dialects.js';
import { acceptJobsCases } from './accept-jobs.case.js';

describeEachDialect('acceptJobs', (ctx, dialect) =>
  acceptJobsCases(dialect, ctx, {
    "with `outbox`, the queued jobs' outbox rows land in the jobs' own batch, and only theirs":
      'D1 only: with a transaction, the caller stages the outbox rows inside it (accept-batcher.ts)',
  }),
);
