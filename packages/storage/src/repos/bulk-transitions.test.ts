// Bulk transitions and leases on SQLite and PostgreSQL; the cases are shared with the D1 run in
// workerd (bulk-transitions.case.ts, workerd/storage-d1.test.ts).
import { describeEachDialect } from '../testing/dialects.js';
import { bulkTransitionsCases } from './bulk-transitions.case.js';

describeEachDialect('bulk transitions and job leases', (ctx, dialect) =>
  bulkTransitionsCases(dialect, ctx),
);
