// Catches a dead worker's running jobs waiting out their whole lease, on the embedded runtime:
// the case is written once (dead-worker-taken-over-in-seconds.case.ts); a runtime package runs it
// on its transport.
import { embeddedRig } from '../testing/invariant-rig.js';
import { describeDeadWorkerTakenOverInSeconds } from '../testing/dead-worker-taken-over-in-seconds.case.js';

describeDeadWorkerTakenOverInSeconds('embedded', embeddedRig);
