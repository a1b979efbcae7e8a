import { sluiceVitest } from '../../vitest.shared.js';

// One browser suite: its tests share a gateway, a worker and Chromium, one after another.
export default sluiceVitest({ fileParallelism: false });
