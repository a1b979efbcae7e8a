// Catches what no single-fault test can: faults that meet. The worker's chaos soak on this
// runtime: 4 NATS worker processes run paid jobs on PostgreSQL while a worker is SIGKILLed every
// few seconds and started again, one is SIGSTOPped past its lease and woken, nats-server restarts
// on an emptied store and the workers' NATS link is blackholed; then nothing may be lost, billed
// twice, orphaned, ghosted or written by a zombie (`chaosSoak` in `@sluice/worker/chaos` has the
// checks). PR tier: 500 jobs; `npm run chaos -- --runtime nats` runs 10,000 (CHAOS_JOBS picks the
// size).

import { chaosSoak } from '@sluice/worker/chaos';
import { natsChaosAdapter } from './testing/chaos/nats-chaos-adapter.js';

chaosSoak(natsChaosAdapter, { dialect: 'postgres', scenario: 'nats-chaos-soak' });
