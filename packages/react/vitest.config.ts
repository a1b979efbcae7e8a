import { sluiceVitest } from '../../vitest.shared.js';

// A real gateway, a worker and Chromium per file: one file at a time on a shared 2-core machine.
export default sluiceVitest({ testTimeout: 60_000, fileParallelism: false });
