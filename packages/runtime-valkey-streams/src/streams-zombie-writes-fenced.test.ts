// Catches a paused Streams worker taking its entry back (an unconditional XCLAIM renewal, an ack
// of the new owner's entry) or landing late writes after another worker claimed its job: the
// worker's case (zombie-writes-fenced.case.ts), on one dialect; the rig shows the pending list's
// owners.
import { describeZombieWritesFenced, ONE_DIALECT } from '@sluice/worker/conformance';
import { createStreamsRig } from './testing/streams-rig.js';

describeZombieWritesFenced('streams', createStreamsRig, ONE_DIALECT);
