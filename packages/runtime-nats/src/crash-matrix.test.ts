// Catches double billing, double submission and lost work around a worker crash on this
// transport: the worker's crash-point table (every crash point × sync, async-job and retry-safe
// calls; `crashMatrixRows` in `@sluice/worker/conformance`, the same rows the embedded runtime
// runs) with worker A a real process SIGKILLed at the point, and worker B taking the message over
// once AckWait (the lease) hands it out again. One dialect: the run is long. Where the claim
// does not start the job (`startsOnClaim` false) a crash right after it leaves no attempt
// behind: the table's `attemptsUnstartedClaim`.
import {
  crashMatrixRows,
  describeCrashMatrix,
  ONE_DIALECT,
  type MatrixCall,
} from '@sluice/worker/conformance';
import { NATS_CAPABILITIES } from './capabilities.js';
import { createNatsRig } from './testing/nats-rig.js';

for (const call of ['sync', 'async', 'safe'] satisfies MatrixCall[]) {
  describeCrashMatrix(call, crashMatrixRows(call), {
    name: 'nats',
    makeRig: createNatsRig,
    dialects: ONE_DIALECT,
    capabilities: NATS_CAPABILITIES,
  });
}
