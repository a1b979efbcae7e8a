// The waiting lists of `maxRunning` limits on SQLite and PostgreSQL (limit-waiters.case.ts).
import { describeEachDialect } from '../testing/dialects.js';
import { limitWaitersCases } from './limit-waiters.case.js';

describeEachDialect('limit waiting lists (wake on release)', (ctx, dialect) => {
  limitWaitersCases(dialect, ctx);
});
