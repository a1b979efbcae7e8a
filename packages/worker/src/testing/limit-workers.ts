// Workers of one kind on their own database handles, on the embedded runtime or on Valkey
// Streams, with the short settings the limit tests need (a shared limit is only tested when
// several workers compete for it). The first worker uses `database`, the rest `open()`.
import type { AnyJobDefinition } from '@sluice/contracts';
import type { SluiceDatabase } from '@sluice/storage';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { createStreamsRuntime } from '../backends/create-streams-runtime.js';
import { createWorker, type CreateWorkerOptions, type Worker } from '../create-worker.js';

export type LimitRuntime = 'embedded' | 'streams';

export interface LimitWorkersOptions {
  count: number;
  job: AnyJobDefinition;
  handler: unknown;
  runtime: LimitRuntime;
  database: SluiceDatabase;
  open(): SluiceDatabase;
  /** The Streams fixture's server (only for `runtime: 'streams'`). */
  redisUrl: string;
  concurrency: number;
  overrides?: Partial<CreateWorkerOptions> | undefined;
}

export async function startLimitWorkers(o: LimitWorkersOptions): Promise<Worker[]> {
  const out: Worker[] = [];
  for (let i = 0; i < o.count; i++) {
    const database = i === 0 ? o.database : o.open();
    const worker = createWorker({
      jobs: { [o.job.kind]: o.job },
      handlers: { [o.job.kind]: { v1: o.handler } },
      database,
      concurrency: o.concurrency,
      leaseMs: 5_000,
      sweepEveryMs: 0,
      metrics: { processMetrics: false },
      runtime: (c) =>
        o.runtime === 'streams'
          ? createStreamsRuntime({
              ...c,
              redisUrl: o.redisUrl,
              blockMs: 100,
              claimEveryMs: 100,
              heartbeatEveryMs: 100,
            })
          : createEmbeddedRuntime({ database, ...c, pollMs: 10, blockMs: 100 }),
      ...o.overrides,
    } as CreateWorkerOptions);
    await worker.start();
    out.push(worker);
  }
  return out;
}
