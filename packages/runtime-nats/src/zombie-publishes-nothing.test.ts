// Catches a paused attempt that publishes or deletes after it lost its job, on NATS JetStream, on
// SQLite and PostgreSQL: the worker's case (zombie-publishes-nothing.case.ts).
import { describeZombiePublishesNothing } from '@sluice/worker/conformance';
import { createNatsRig } from './testing/nats-rig.js';

describeZombiePublishesNothing('nats', createNatsRig);
