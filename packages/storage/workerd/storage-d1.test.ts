// The dialect-parameterised storage suites on D1, inside workerd: the same cases the Node run
// applies to SQLite and PostgreSQL (`*.case.ts`). A case that cannot apply is listed with its
// reason (printed and reported as skipped), never dropped.
import { acceptJobsCases } from '../src/repos/accept-jobs.case.js';
import { bulkTransitionsCases } from '../src/repos/bulk-transitions.case.js';
import { jobsCases } from '../src/repos/jobs.case.js';
import { retrySafetyCases } from '../src/repos/retry-safety.case.js';
import { attemptWriteCases } from '../src/write-model/attempt-write.case.js';
import { claimJobsCases } from '../src/write-model/claim-jobs.case.js';
import { describeD1 } from '../src/testing/d1.js';
import { bindings } from './bindings.js';

describeD1('writeAttempts', bindings.DB, (ctx) => attemptWriteCases('d1', ctx));

// Not a case here: 'two processes claiming the same 200 jobs never share one' (claim-jobs.test.ts)
// spawns Node processes on one database file; the shared 'two handles claiming…' case races two
// handles on the binding instead.
describeD1('claimJobs (the jobs table is the embedded queue)', bindings.DB, (ctx) =>
  claimJobsCases('d1', ctx),
);

describeD1('acceptJobs', bindings.DB, (ctx) => acceptJobsCases('d1', ctx));

describeD1('jobs repository', bindings.DB, (ctx) => jobsCases('d1', ctx));

describeD1('units, provider ledger and assets', bindings.DB, (ctx) => retrySafetyCases('d1', ctx));

describeD1('bulk transitions and job leases', bindings.DB, (ctx) =>
  bulkTransitionsCases('d1', ctx),
);
