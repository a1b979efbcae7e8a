import { sluiceVitest } from '../../vitest.shared.js';

// Real espeak-ng and ffmpeg behind provider processes, and worker child processes: one file at a
// time keeps the 2-core machine from timing out its own renders.
export default sluiceVitest({ testTimeout: 90_000, fileParallelism: false });
