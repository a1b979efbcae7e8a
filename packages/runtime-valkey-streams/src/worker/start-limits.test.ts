// Start limits per tenant, API key and kind on Valkey Streams, on SQLite and PostgreSQL: the
// worker's cases (start-limits.case.ts), with the gateway's dispatch and reconciler played by the
// rig (a held job comes back to its stream through its outbox row).
import { describeStartLimits } from '@sluice/worker/conformance';
import { createStreamsLimitRig } from '../testing/streams-limit-rig.js';

describeStartLimits('streams', createStreamsLimitRig);
