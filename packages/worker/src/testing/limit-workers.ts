// Workers of one kind on their own database handles, on the embedded runtime or the runtime a
// runtime package's test passes in, with the short settings the limit tests need (a shared limit
// is only tested when several workers compete for it). The first worker uses `database`, the
// rest `open()`.
import type { AnyJobDefinition, MessagePointer, RuntimeConsumerFactory } from '@sluice/contracts';
import { isTerminalState } from '@sluice/contracts';
import { getJobsByIds, type JobRow, type SluiceDatabase } from '@sluice/storage';
import { waitFor } from '@sluice/testkit';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { createWorker, type CreateWorkerOptions, type Worker } from '../create-worker.js';

/** `'embedded'`, or a consumer factory for the worker on this database handle. */
export type LimitRuntime = 'embedded' | ((database: SluiceDatabase) => RuntimeConsumerFactory);

/**
 * One runtime as the limit cases (start-limits.case.ts, provider-limits.case.ts) see it: its
 * workers, and the gateway's part where the runtime's transport is not the job database.
 */
export interface LimitRig {
  readonly runtime: LimitRuntime;
  /** Hands accepted jobs to the transport; absent where accepting a job already queues it. */
  dispatch?(pointers: readonly MessagePointer[]): Promise<void>;
  /**
   * Brings a held job back when its outbox row is due (the gateway's reconciler), for a transport
   * a held job leaves; returns its stop. Absent where the job database is the queue.
   */
  reconcile?(database: SluiceDatabase): () => Promise<void>;
  dispose(): Promise<void>;
}

/** The embedded runtime: the queue lives in the job database, nothing to dispatch or reconcile. */
export function embeddedLimitRig(): Promise<LimitRig> {
  return Promise.resolve({ runtime: 'embedded', dispose: () => Promise.resolve() });
}

export interface LimitWorkersOptions {
  count: number;
  job: AnyJobDefinition;
  handler: unknown;
  runtime: LimitRuntime;
  database: SluiceDatabase;
  open(): SluiceDatabase;
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
      runtime:
        o.runtime === 'embedded'
          ? (c) => createEmbeddedRuntime({ database, ...c, pollMs: 10, blockMs: 100 })
          : o.runtime(database),
      ...o.overrides,
    } as CreateWorkerOptions);
    await worker.start();
    out.push(worker);
  }
  return out;
}

/** Waits until every job is terminal (a minute at most), then returns their rows. */
export async function settleJobs(
  database: SluiceDatabase,
  ids: readonly string[],
): Promise<JobRow[]> {
  await waitFor(
    async () =>
      [...(await getJobsByIds(database.db, ids)).values()].every((r) => isTerminalState(r.state)),
    { timeoutMs: 60_000, message: 'jobs terminal' },
  );
  return [...(await getJobsByIds(database.db, ids)).values()];
}
