// The cancel cascade's storage half on SQLite and PostgreSQL; the cases are shared with the D1
// run in workerd (cancel-descendants.case.ts, workerd/storage-d1.test.ts).
import { describeEachDialect } from '../testing/dialects.js';
import { cancelDescendantsCases } from './cancel-descendants.case.js';

describeEachDialect('cancelDescendants', (ctx, dialect) => cancelDescendantsCases(dialect, ctx));
