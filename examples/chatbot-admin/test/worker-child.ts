// A document.analyze worker as its own OS process, so a test can SIGKILL it mid-analysis.
// Env: DB_URL, BLOB_DIR, AI_URL, WORKER_ID. Prints READY once it consumes.
import { createLocalBlobStore, openDatabase } from '@sluice/storage';
import {
  createEmbeddedRuntime,
  createStderrLogger,
  createWorker,
  installShutdown,
} from '@sluice/worker';
import { createAnalyzeHandler } from '../src/analysis/handler.js';
import { jobs } from '../src/jobs.js';

const need = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is required`);
  return v;
};

const database = openDatabase({ url: need('DB_URL'), poolSize: 4 });
const blobs = createLocalBlobStore(need('BLOB_DIR'));
// A short lease, so the next worker takes a killed one’s job over within seconds; not shorter:
// loading pdfjs on a busy machine holds the event loop (and so the renewals) for a few seconds.
const leaseMs = 5000;
const worker = createWorker({
  jobs,
  handlers: {
    'document.analyze': {
      v1: createAnalyzeHandler({ version: 'v1', aiUrl: need('AI_URL'), pollMs: 50 }),
      v2: createAnalyzeHandler({ version: 'v2', aiUrl: need('AI_URL'), pollMs: 50 }),
    },
  },
  database,
  blobs,
  concurrency: 2,
  unitConcurrency: 2,
  leaseMs,
  renewEveryMs: leaseMs / 4,
  workerId: need('WORKER_ID'),
  logger: createStderrLogger(),
  runtime: (ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 20, blockMs: 200 }),
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
process.stdout.write('READY\n');
