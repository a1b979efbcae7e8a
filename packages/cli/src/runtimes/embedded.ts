// The embedded runtime, the default: the queue is the jobs table of the job database (SQLite,
// PostgreSQL). Its halves are the gateway's and the worker's own (no transport of its own, so no
// package of its own): dispatch joins the accept transaction, a claim starts the job.
// The halves import the gateway and the worker when started: the registry (read by every command)
// holds this object.
import { defineRuntime, EMBEDDED_CAPABILITIES } from '@sluice/contracts';
import type { GatewayRuntimeHalf, RuntimeResources } from '@sluice/gateway';
import { z } from 'zod';

export const embedded = defineRuntime({
  name: 'embedded',
  options: z.object({}).strict(),
  capabilities: () => EMBEDDED_CAPABILITIES,
  async gateway(_options, { database }: RuntimeResources): Promise<GatewayRuntimeHalf> {
    const { createEmbeddedDispatcher } = await import('@sluice/gateway');
    const dispatcher = createEmbeddedDispatcher(database);
    return { dispatcher, close: () => dispatcher.close() };
  },
  worker: () => ({
    kind: 'pull',
    consumer: async ({ database }: RuntimeResources) => {
      const { createEmbeddedRuntime } = await import('@sluice/worker');
      return (ctx) => createEmbeddedRuntime({ database, ...ctx });
    },
  }),
});
