// Catches a job run by a version it was not accepted for, on Valkey Streams: the worker's case
// (no-silent-version-fallback.case.ts). A v2 job on the v1 stream cannot be sent here (the
// pointer codec refuses a version other than the id's prefix), so only the v2 stream's are.
import { describeNoSilentVersionFallback } from '@sluice/worker/conformance';
import { createStreamsRig } from './testing/streams-rig.js';

describeNoSilentVersionFallback('streams', createStreamsRig);
