import { SluiceError } from '@sluice/contracts';
import { createWorker, type HandlerRegistry, type Worker } from '@sluice/worker';
import type { Settings } from '../define-config.js';
import type { Resources } from '../resources.js';

export async function startWorker(settings: Settings, resources: Resources): Promise<Worker> {
  if (Object.keys(settings.handlers).length === 0) {
    throw new SluiceError(
      'INVALID_CONFIG',
      'a worker needs handlers: add `handlers` to sluice.config.ts',
    );
  }
  // The consume half of the configured runtime: a pull consumer, or a platform that pushes.
  const half = settings.runtime.worker();
  if (half.kind === 'push') throw new SluiceError('INVALID_CONFIG', half.instructions);
  const consumer = await half.consumer({ database: resources.database });
  const worker = createWorker({
    jobs: settings.jobs,
    handlers: settings.handlers as HandlerRegistry,
    runtime: consumer,
    database: resources.database,
    blobs: resources.blobs,
    concurrency: settings.concurrency,
    readBatch: settings.readBatch,
    workerId: settings.workerId,
    leaseMs: settings.leaseMs,
    deadAfterMs: settings.deadAfterMs,
    limits: { providers: settings.providerLimits, kinds: settings.kindLimits },
    // Bound where it says (--metrics-host, default loopback): a scraper or kubelet in another
    // network namespace needs 0.0.0.0.
    probes:
      settings.workerPort === undefined
        ? undefined
        : { port: settings.workerPort, hostname: settings.metricsHost },
  });
  await worker.start();
  return worker;
}
