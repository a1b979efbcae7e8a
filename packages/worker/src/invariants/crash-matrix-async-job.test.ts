// Catches double submission of an ASYNC provider job (class pollable) around a worker crash:
// once the external job id is recorded, recovery polls it and never submits again; a crash
// before the id was recorded leaves a job the provider may have started, so it goes to review.
// Its rows of the crash-point table (crash-matrix-rows.ts, shared with the runtime packages) on
// the embedded runtime.
import { crashMatrixRows } from '../testing/crash-matrix-rows.js';
import { describeCrashMatrix } from '../testing/crash-matrix.case.js';

describeCrashMatrix('async', crashMatrixRows('async'));
