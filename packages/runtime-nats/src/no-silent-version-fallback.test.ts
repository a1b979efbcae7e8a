// Catches a job run by a version it was not accepted for, on NATS JetStream: the worker's case
// (no-silent-version-fallback.case.ts). The pointer codec (shared with Streams) refuses a version
// other than the id's prefix, so only correctly routed pointers are sent.
import { describeNoSilentVersionFallback } from '@sluice/worker/conformance';
import { createNatsRig } from './testing/nats-rig.js';

describeNoSilentVersionFallback('nats', createNatsRig);
