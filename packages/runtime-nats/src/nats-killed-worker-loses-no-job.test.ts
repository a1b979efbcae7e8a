// Catches a job lost when its worker process is SIGKILLed mid-run, on NATS JetStream: the
// worker's case (no-job-lost-on-crash.case.ts) over this transport's rig; the killed worker's
// messages come back once AckWait (the lease) has passed.
import { describeNoJobLostOnCrash, ONE_DIALECT } from '@sluice/worker/conformance';
import { createNatsRig } from './testing/nats-rig.js';

describeNoJobLostOnCrash('nats', createNatsRig, ONE_DIALECT);
