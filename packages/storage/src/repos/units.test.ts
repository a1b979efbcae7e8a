// Shared with the D1 run in workerd (units.case.ts, workerd/storage-d1.test.ts).
import { describeEachDialect } from '../testing/dialects.js';
import { unitsCases } from './units.case.js';

describeEachDialect('getUnitsOfJobs', (ctx, dialect) => unitsCases(dialect, ctx));
