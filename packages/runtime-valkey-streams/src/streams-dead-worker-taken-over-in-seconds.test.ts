// Catches a dead Streams worker's entries waiting in its pending list until their claims idle out
// although its death is known in seconds: the worker's case
// (dead-worker-taken-over-in-seconds.case.ts), on one dialect.
import { describeDeadWorkerTakenOverInSeconds, ONE_DIALECT } from '@sluice/worker/conformance';
import { createStreamsRig } from './testing/streams-rig.js';

describeDeadWorkerTakenOverInSeconds('streams', createStreamsRig, ONE_DIALECT);
