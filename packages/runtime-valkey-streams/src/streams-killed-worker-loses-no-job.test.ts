// Catches lost or doubled work when a Streams worker process dies mid-job (entries stranded in a
// dead consumer's pending list, a claim before the idle threshold, a job that ends twice, a PEL
// left behind): the worker's case (no-job-lost-on-crash.case.ts), on one dialect.
import { describeNoJobLostOnCrash, ONE_DIALECT } from '@sluice/worker/conformance';
import { createStreamsRig } from './testing/streams-rig.js';

describeNoJobLostOnCrash('streams', createStreamsRig, ONE_DIALECT);
