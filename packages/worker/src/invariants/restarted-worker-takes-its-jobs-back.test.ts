// Catches a restarted worker that waits out its own previous incarnation's lease, on the
// embedded runtime (its claims): the case is written once
// (restarted-worker-takes-its-jobs-back.case.ts); a runtime package runs it on its transport.
import { embeddedRig } from '../testing/invariant-rig.js';
import { describeRestartedWorkerTakesItsJobsBack } from '../testing/restarted-worker-takes-its-jobs-back.case.js';

describeRestartedWorkerTakesItsJobsBack('embedded', embeddedRig);
