// Catches what no single-fault test can: faults that meet. The worker's chaos soak on this
// runtime: 4 Streams worker processes run paid jobs on PostgreSQL while a worker is SIGKILLed every
// few seconds and started again, one is SIGSTOPped past its lease and woken, redis-server restarts
// without persistence and the Redis link is blackholed; then nothing may be lost, billed twice,
// orphaned, ghosted or written by a zombie (`chaosSoak` in `@sluice/worker/chaos` has the checks).
// PR tier: 500 jobs; `npm run chaos` runs 10,000 (CHAOS_JOBS picks the size).

import { chaosSoak } from '@sluice/worker/chaos';
import { streamsChaosAdapter } from './testing/chaos/streams-chaos-adapter.js';
import { XP_DIALECT } from './testing/streams-xp-suite.js';

chaosSoak(streamsChaosAdapter, { dialect: XP_DIALECT, scenario: 'chaos-soak' });
