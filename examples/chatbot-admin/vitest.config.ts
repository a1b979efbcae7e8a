import { sluiceVitest } from '../../vitest.shared.js';

// Chromium, a vite build, the provider process and a gateway with a worker: one file at a time
// on a shared 2-core machine.
export default sluiceVitest({ testTimeout: 90_000, hookTimeout: 120_000, fileParallelism: false });
