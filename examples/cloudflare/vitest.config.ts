import { sluiceVitest } from '../../vitest.shared.js';

// wrangler dev starts slowly on a loaded machine; the e2e files run one after the other.
export default sluiceVitest({ testTimeout: 120_000, hookTimeout: 180_000, fileParallelism: false });
