// Catches double billing and lost work around a worker crash, for a SYNC provider call (class
// ambiguous): a crash that leaves it open whether the provider billed parks the job for a
// person; one that provably happened before sending, or after the answer was kept, recovers by
// itself. Its rows of the crash-point table (crash-matrix-rows.ts, shared with the runtime packages) on
// the embedded runtime.
import { crashMatrixRows } from '../testing/crash-matrix-rows.js';
import { describeCrashMatrix } from '../testing/crash-matrix.case.js';

describeCrashMatrix('sync', crashMatrixRows('sync'));
