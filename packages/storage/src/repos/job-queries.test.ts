// Shared with the D1 run in workerd (job-queries.case.ts, workerd/storage-d1.test.ts).
import { describeEachDialect } from '../testing/dialects.js';
import { jobQueriesCases } from './job-queries.case.js';

describeEachDialect('job queries and the served-versions registry', (ctx, dialect) =>
  jobQueriesCases(dialect, ctx),
);
