// Catches a paused attempt that publishes or deletes after it lost its job, on the embedded
// runtime: the case is written once (zombie-publishes-nothing.case.ts); a runtime package runs it
// on its transport.
import { embeddedRig } from '../testing/invariant-rig.js';
import { describeZombiePublishesNothing } from '../testing/zombie-publishes-nothing.case.js';

describeZombiePublishesNothing('embedded', embeddedRig);
