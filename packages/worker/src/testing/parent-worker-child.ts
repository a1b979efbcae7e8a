// A worker as its own OS process serving a parent and its child kind, for the crash tests of
// child jobs: `xp.parent` starts one `xp.child` (key `only`) in prepare and waits for it;
// `xp.child` doubles its input. The embedded runtime over DB_URL; CRASHPOINTS from the
// environment (`after-child-start@1` SIGKILLs it right after the child's insert committed).
// Prints `READY` and `PARENT <jobId> <attempt>` lines.

import { defineJob } from '@sluice/contracts';
import { openDatabase } from '@sluice/storage';
import { z } from 'zod';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { createWorker } from '../create-worker.js';
import { defineHandler } from '../attempt/define-handler.js';
import { createStderrLogger } from '../logger.js';
import { hooksFromEnv } from './seeded-bugs.js';

export const xpChild = defineJob({
  kind: 'xp.child',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ n: z.number().int() }),
});
export const xpParent = defineJob({
  kind: 'xp.parent',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ n: z.number().int() }),
});

const handlers = {
  [xpChild.kind]: {
    v1: defineHandler(xpChild, {
      prepare: (ctx) => [{ key: 'c', input: ctx.input.n }],
      execute: (unit) => unit.input * 2,
      finalize: (results) => ({ n: results[0]?.result ?? 0 }),
    }),
  },
  [xpParent.kind]: {
    v1: defineHandler(xpParent, {
      prepare: async (ctx) => {
        process.stdout.write(`PARENT ${ctx.jobId} ${ctx.attempt}\n`);
        const child = await ctx.children.start(xpChild, { n: ctx.input.n }, { key: 'only' });
        const [r] = await ctx.children.wait([child]);
        return [{ key: 'u', input: r?.ok ? r.output.n : -1 }];
      },
      execute: (unit) => unit.input,
      finalize: (results) => ({ n: results[0]?.result ?? -1 }),
    }),
  },
};

const url = process.env.DB_URL;
if (!url) throw new Error('DB_URL is required');
const database = openDatabase({ url, poolSize: 4 });
const worker = createWorker({
  hooks: hooksFromEnv(database),
  jobs: { [xpChild.kind]: xpChild, [xpParent.kind]: xpParent },
  handlers,
  database,
  concurrency: 4,
  leaseMs: 1000,
  renewEveryMs: 250,
  workerId: process.env.WORKER_ID ?? 'xp-parent',
  logger: createStderrLogger(),
  runtime: (ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 20, blockMs: 200 }),
});
await worker.start();
process.stdout.write('READY\n');
