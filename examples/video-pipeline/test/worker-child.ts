// A video.render worker as its own OS process, so a test can SIGKILL it. Env: DB_URL, BLOB_DIR,
// SPEECH_URL, VIDEO_URL, WORK_DIR, WORKER_ID. Test seams, injected here and nowhere else:
//   CRASH_AT=<crash point>@<n>  SIGKILL this process at the n-th pass of a worker crash point
//   CORRUPT_FINAL=1             cut the assembled MP4 short before finalize verifies it
// Prints READY, and SETTLED <jobId> <outcome> per finished job.
import { truncateSync, statSync } from 'node:fs';
import { createLocalBlobStore, openDatabase } from '@sluice/storage';
import {
  createEmbeddedRuntime,
  createStderrLogger,
  createWorker,
  installShutdown,
  type CrashPoint,
} from '@sluice/worker';
import { createVideoHandlers } from '../src/handlers.js';
import { jobs } from '../src/jobs.js';
import { optionsFromEnv } from '../src/options.js';

const need = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};
const say = (line: string) => process.stdout.write(`${line}\n`);

const [crashPoint, crashAt] = (process.env.CRASH_AT ?? '').split('@');
let passes = 0;
const at = (point: CrashPoint) => {
  if (point === crashPoint && ++passes === Number(crashAt)) {
    say(`CRASH ${point}@${passes}`);
    process.kill(process.pid, 'SIGKILL');
  }
};

const database = openDatabase({ url: need('DB_URL'), poolSize: 4 });
const blobs = createLocalBlobStore(need('BLOB_DIR'));
const options = {
  ...optionsFromEnv({
    SPEECH_PROVIDER_URL: need('SPEECH_URL'),
    VIDEO_PROVIDER_URL: need('VIDEO_URL'),
    VIDEO_WORK_DIR: need('WORK_DIR'),
    VIDEO_WIDTH: '320',
    VIDEO_HEIGHT: '180',
    VIDEO_FPS: '10',
    VIDEO_POLL_MS: process.env.VIDEO_POLL_MS ?? '50',
  }),
  hooks: {
    afterConcat: process.env.CORRUPT_FINAL
      ? (file: string) => truncateSync(file, Math.floor(statSync(file).size * 0.6))
      : undefined,
  },
};
const leaseMs = 1500;
const worker = createWorker({
  jobs,
  handlers: createVideoHandlers(options),
  database,
  blobs,
  hooks: { at },
  concurrency: 2,
  // Scenes one after the other: "after scene 2's clip" is a well-defined moment.
  unitConcurrency: 1,
  leaseMs,
  renewEveryMs: leaseMs / 4,
  retryBackoff: { baseMs: 50, maxMs: 200 },
  stagingSweepEveryMs: 300,
  workerId: need('WORKER_ID'),
  logger: createStderrLogger(),
  runtime: (ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 20, blockMs: 200 }),
  onSettled: (settled) => {
    for (const j of settled) say(`SETTLED ${j.jobId} ${j.outcome}`);
  },
});
installShutdown(
  {
    stop: async (opts) => {
      await worker.stop(opts);
      await database.close();
    },
  },
  { deadlineMs: 5000 },
);
await worker.start();
say('READY');
