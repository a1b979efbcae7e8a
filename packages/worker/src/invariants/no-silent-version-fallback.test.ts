// Catches a job run by a version it was not accepted for, on the embedded runtime: the case is
// written once (no-silent-version-fallback.case.ts); a runtime package runs it on its transport.
// The embedded queue carries the misrouted pointers too (a v2 job on the v1 queue).
import { embeddedRig } from '../testing/invariant-rig.js';
import { describeNoSilentVersionFallback } from '../testing/no-silent-version-fallback.case.js';

describeNoSilentVersionFallback('embedded', embeddedRig);
