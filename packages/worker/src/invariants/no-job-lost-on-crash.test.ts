// Catches lost work when a worker process dies mid-job, on the embedded runtime: the case is
// written once (no-job-lost-on-crash.case.ts); a runtime package runs it on its transport.
import { embeddedRig } from '../testing/invariant-rig.js';
import { describeNoJobLostOnCrash } from '../testing/no-job-lost-on-crash.case.js';

describeNoJobLostOnCrash('embedded', embeddedRig);
