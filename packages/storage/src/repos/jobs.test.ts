// The jobs repository on SQLite and PostgreSQL; the cases are shared with the D1 run in workerd
// (jobs.case.ts, workerd/storage-d1.test.ts).
import { describeEachDialect } from '../testing/dialects.js';
import { jobsCases } from './jobs.case.js';

describeEachDialect('jobs repository', (ctx, dialect) =>
  jobsCases(dialect, ctx, {
    ...(dialect === 'sqlite' && {
      // Two better-sqlite3 handles in one process would deadlock (a busy wait blocks the event
      // loop), so SQLite races are tested across processes (claim-jobs.test.ts).
      'two handles racing to start one job: exactly one wins':
        'one handle per process on SQLite; raced across processes in claim-jobs.test.ts',
    }),
  }),
);
