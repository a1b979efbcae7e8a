// Units, the provider-call ledger and assets on SQLite and PostgreSQL; the cases are shared with
// the D1 run in workerd (retry-safety.case.ts, workerd/storage-d1.test.ts).
import { describeEachDialect } from '../testing/dialects.js';
import { assetBatchCases } from './assets-batch.case.js';
import { retrySafetyCases } from './retry-safety.case.js';

describeEachDialect('units, provider ledger and assets', (ctx, dialect) =>
  retrySafetyCases(dialect, ctx),
);
describeEachDialect(
  'the asset publish in its batch form (D1 runs it as one batch)',
  (ctx, dialect) => assetBatchCases(dialect, ctx),
);
