// Catches double billing, double submission and lost work around a worker crash on this
// transport: the worker's crash-point table (every crash point × sync, async-job and retry-safe
// calls; `crashMatrixRows` in `@sluice/worker/conformance`, the same rows the embedded runtime
// runs) with worker A a real process SIGKILLed at the point, and worker B claiming its pending
// entry once the lease has passed. One dialect: the run is long. Where the claim does not start
// the job (`startsOnClaim` false) a crash right after it leaves no attempt behind: the table's
// `attemptsUnstartedClaim`.
import {
  crashMatrixRows,
  describeCrashMatrix,
  ONE_DIALECT,
  type MatrixCall,
} from '@sluice/worker/conformance';
import { valkeyStreamsCapabilities } from './capabilities.js';
import { createStreamsRig } from './testing/streams-rig.js';

for (const call of ['sync', 'async', 'safe'] satisfies MatrixCall[]) {
  describeCrashMatrix(call, crashMatrixRows(call), {
    name: 'streams',
    makeRig: () => createStreamsRig(),
    dialects: ONE_DIALECT,
    capabilities: valkeyStreamsCapabilities(true),
  });
}
