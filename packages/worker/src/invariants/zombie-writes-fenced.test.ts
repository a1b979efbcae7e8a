// Catches a zombie worker's late writes landing after its job was taken over, on the embedded
// runtime: the case is written once (zombie-writes-fenced.case.ts); a runtime package runs it on
// its transport.
import { embeddedRig } from '../testing/invariant-rig.js';
import { describeZombieWritesFenced } from '../testing/zombie-writes-fenced.case.js';

describeZombieWritesFenced('embedded', embeddedRig);
