// Shared with the D1 run in workerd (storage-dialect.case.ts, workerd/storage-d1.test.ts).
import { describeEachDialect } from '../testing/dialects.js';
import { storageDialectCases } from './storage-dialect.case.js';

describeEachDialect('the dialect’s capabilities', (ctx, dialect) =>
  storageDialectCases(dialect, ctx),
);
