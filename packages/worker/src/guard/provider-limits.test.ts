// Shared provider limits across workers on the embedded runtime, on SQLite and PostgreSQL (the
// cases are written once in provider-limits.case.ts; a runtime package runs them on its
// transport: the limit is per provider, not per transport).
import { describeProviderLimits } from '../testing/provider-limits.case.js';
import { embeddedLimitRig } from '../testing/limit-workers.js';

describeProviderLimits('embedded', embeddedLimitRig);
