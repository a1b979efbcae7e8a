// Catches a restarted worker that waits out its own previous incarnation's lease, on Valkey
// Streams (its own pending entries): the worker's case
// (restarted-worker-takes-its-jobs-back.case.ts).
import { describeRestartedWorkerTakesItsJobsBack } from '@sluice/worker/conformance';
import { createStreamsRig } from './testing/streams-rig.js';

describeRestartedWorkerTakesItsJobsBack('streams', createStreamsRig);
