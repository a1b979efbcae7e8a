// Catches a dead worker's running jobs waiting out their whole lease (AckWait) before anyone
// resumes them, on NATS JetStream: the worker's case (dead-worker-taken-over-in-seconds.case.ts),
// on one dialect. A live worker hands a dead holder's messages back (`takeOver`: a NAK on the
// holder's ack subject, from its owner record) once its liveness beat lapsed.
import { describeDeadWorkerTakenOverInSeconds, ONE_DIALECT } from '@sluice/worker/conformance';
import { createNatsRig } from './testing/nats-rig.js';

describeDeadWorkerTakenOverInSeconds('nats', createNatsRig, ONE_DIALECT);
