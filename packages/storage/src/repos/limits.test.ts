// Shared limits on SQLite and PostgreSQL (limits.case.ts, also run on D1 in workerd).
import { describeEachDialect } from '../testing/dialects.js';
import { limitsCases } from './limits.case.js';

describeEachDialect('shared limits (semaphores and token buckets)', (ctx, dialect) => {
  limitsCases(dialect, ctx);
});
