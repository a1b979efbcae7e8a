// writeAttempts on SQLite and PostgreSQL; the cases are shared with the D1 run in workerd
// (attempt-write.case.ts, workerd/storage-d1.test.ts).
import { describeEachDialect } from '../testing/dialects.js';
import { attemptWriteCases } from './attempt-write.case.js';

describeEachDialect('writeAttempts', (ctx, dialect) => attemptWriteCases(dialect, ctx));
