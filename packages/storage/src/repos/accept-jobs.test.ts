// The accept path's group commit on SQLite and PostgreSQL; the cases are shared with the D1 run
// in workerd (accept-jobs.case.ts, workerd/storage-d1.test.ts).
import { describeEachDialect } from '../testing/dialects.js';
import { acceptJobsCases } from './accept-jobs.case.js';

describeEachDialect('acceptJobs', (ctx, dialect) => acceptJobsCases(dialect, ctx));
