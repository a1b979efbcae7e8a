// Shared provider limits on Valkey Streams workers, on SQLite and PostgreSQL: the worker's cases
// (provider-limits.case.ts). The limit is per provider, not per transport: Streams workers share
// the same database counters.
import { describeProviderLimits } from '@sluice/worker/conformance';
import { createStreamsLimitRig } from '../testing/streams-limit-rig.js';

describeProviderLimits('streams', createStreamsLimitRig);
