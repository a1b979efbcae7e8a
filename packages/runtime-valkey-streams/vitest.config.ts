import { configDefaults } from 'vitest/config';
import { sluiceVitest } from '../../vitest.shared.js';

// The cluster failover run (a 6-node cluster, 300 paid jobs, ~90 s of two cores) has its own
// command, `npm run test:cluster` (vitest.cluster.config.ts); the conformance suite on a cluster
// stays in this one.
export const CLUSTER_FAILOVER = 'src/cluster-failover-loses-no-job.test.ts';

export default sluiceVitest({ exclude: [...configDefaults.exclude, CLUSTER_FAILOVER] });
