// The embedded runtime, the default: the queue is the jobs table of the job database (SQLite,
// PostgreSQL). Its halves are the gateway's and the worker's own (no transport of its own, so no
// package of its own): dispatch joins the accept transaction, a claim starts the job.
import { defineRuntime, EMBEDDED_CAPABILITIES } from '@sluice/contracts';
import {
  createEmbeddedDispatcher,
  type GatewayRuntimeHalf,
  type RuntimeResources,
} from '@sluice/gateway';
import { createEmbeddedRuntime } from '@sluice/worker';
import { z } from 'zod';

export const embedded = defineRuntime({
  name: 'embedded',
  options: z.object({}).strict(),
  capabilities: () => EMBEDDED_CAPABILITIES,
  gateway(_options, { database }: RuntimeResources): GatewayRuntimeHalf {
    const dispatcher = createEmbeddedDispatcher(database);
    return { dispatcher, close: () => dispatcher.close() };
  },
  worker: () => ({
    kind: 'pull',
    consumer:
      ({ database }: RuntimeResources) =>
      (ctx) =>
        createEmbeddedRuntime({ database, ...ctx }),
  }),
});
