import { sluiceVitest } from '../../vitest.shared.js';

export default sluiceVitest({ testTimeout: 60_000, hookTimeout: 120_000 });
