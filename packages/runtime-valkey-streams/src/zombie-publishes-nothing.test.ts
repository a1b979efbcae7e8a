// Catches a paused attempt that publishes or deletes after it lost its job, on Valkey Streams,
// on SQLite and PostgreSQL: the worker's case (zombie-publishes-nothing.case.ts).
import { describeZombiePublishesNothing } from '@sluice/worker/conformance';
import { createStreamsRig } from './testing/streams-rig.js';

describeZombiePublishesNothing('streams', createStreamsRig);
