import { SluiceError } from '@sluice/contracts';
import {
  createEmbeddedRuntime,
  createStreamsRuntime,
  createWorker,
  type HandlerRegistry,
  type RuntimeOption,
  type Worker,
} from '@sluice/worker';
import type { Settings } from '../define-config.js';
import type { Resources } from '../resources.js';

/** The consume half of the configured runtime. */
function runtimeFor(settings: Settings, resources: Resources): RuntimeOption {
  switch (settings.runtime) {
    case 'embedded':
      return (ctx) =>
        createEmbeddedRuntime({
          database: resources.database,
          versions: ctx.versions,
          workerId: ctx.workerId,
          leaseMs: ctx.leaseMs,
          onError: ctx.onError,
        });
    case 'valkey-streams':
      return (ctx) =>
        createStreamsRuntime({
          redisUrl: settings.redisUrl,
          versions: ctx.versions,
          workerId: ctx.workerId,
          leaseMs: ctx.leaseMs,
          onError: ctx.onError,
        });
  }
}

export async function startWorker(settings: Settings, resources: Resources): Promise<Worker> {
  if (Object.keys(settings.handlers).length === 0) {
    throw new SluiceError(
      'INVALID_CONFIG',
      'a worker needs handlers: add `handlers` to sluice.config.ts',
    );
  }
  const worker = createWorker({
    jobs: settings.jobs,
    handlers: settings.handlers as HandlerRegistry,
    runtime: runtimeFor(settings, resources),
    database: resources.database,
    blobs: resources.blobs,
    concurrency: settings.concurrency,
    readBatch: settings.readBatch,
    workerId: settings.workerId,
    leaseMs: settings.leaseMs,
    limits: { providers: settings.providerLimits },
    probes: settings.workerPort === undefined ? undefined : { port: settings.workerPort },
  });
  await worker.start();
  return worker;
}
