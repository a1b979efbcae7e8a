// Catches a restarted worker that waits out its own previous incarnation's lease, on NATS
// JetStream (its owner records in the KV bucket): the worker's case
// (restarted-worker-takes-its-jobs-back.case.ts).
import { describeRestartedWorkerTakesItsJobsBack } from '@sluice/worker/conformance';
import { createNatsRig } from './testing/nats-rig.js';

describeRestartedWorkerTakesItsJobsBack('nats', createNatsRig);
