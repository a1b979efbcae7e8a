// Catches a paused worker's late writes landing after its job was taken over, on NATS JetStream:
// the worker's case (zombie-writes-fenced.case.ts) over this transport's rig.
import { describeZombieWritesFenced, ONE_DIALECT } from '@sluice/worker/conformance';
import { createNatsRig } from './testing/nats-rig.js';

describeZombieWritesFenced('nats', createNatsRig, ONE_DIALECT);
