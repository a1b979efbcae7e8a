// Catches a retry-safe call that is not really retried safely around a worker crash: every
// resend carries the same idempotency key, so the provider deduplicates it (one bill), and a
// crash anywhere ends in success without a person. Its rows of the crash-point table
// (crash-matrix-rows.ts, shared with the runtime packages) on the embedded runtime.
import { crashMatrixRows } from '../testing/crash-matrix-rows.js';
import { describeCrashMatrix } from '../testing/crash-matrix.case.js';

describeCrashMatrix('safe', crashMatrixRows('safe'));
