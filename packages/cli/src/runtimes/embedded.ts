// The embedded runtime: the queue is the jobs table of the job database (SQLite, PostgreSQL).
import { EMBEDDED_CAPABILITIES } from '@sluice/contracts';
import { createEmbeddedDispatcher } from '@sluice/gateway';
import { createEmbeddedRuntime } from '@sluice/worker';
import type { SluiceRuntime } from './types.js';

export const embeddedRuntime: SluiceRuntime<'embedded'> = {
  name: 'embedded',
  capabilities: EMBEDDED_CAPABILITIES,
  check: () => undefined,
  gateway(_settings, resources) {
    const runtime = createEmbeddedDispatcher(resources.database);
    return { runtime, close: () => runtime.close() };
  },
  worker: {
    kind: 'pull',
    create: (_settings, resources) => (ctx) =>
      createEmbeddedRuntime({
        database: resources.database,
        versions: ctx.versions,
        workerId: ctx.workerId,
        leaseMs: ctx.leaseMs,
        onError: ctx.onError,
      }),
  },
};
