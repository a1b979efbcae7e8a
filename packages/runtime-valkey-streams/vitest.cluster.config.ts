import { sluiceVitest } from '../../vitest.shared.js';
import { CLUSTER_FAILOVER } from './vitest.config.js';

export default sluiceVitest({ include: [CLUSTER_FAILOVER] });
