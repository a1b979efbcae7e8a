// Start limits per tenant, API key and kind on the embedded runtime, on SQLite and PostgreSQL
// (the cases are written once in start-limits.case.ts; a runtime package runs them on its
// transport).
import { describeStartLimits } from '../testing/start-limits.case.js';
import { embeddedLimitRig } from '../testing/limit-workers.js';

describeStartLimits('embedded', embeddedLimitRig);
