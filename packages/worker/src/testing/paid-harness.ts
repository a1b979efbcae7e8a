// In-process harness for the retry-safety invariant tests: the fake provider as its own process
// (its billing ledger outlives anything the worker does), an embedded worker running `xp.paid`
// in this process, and readers for what the provider billed and what our ledger recorded.

import { isTerminalState } from '@sluice/contracts';
import {
  callsForJob,
  enqueue,
  getJobsByIds,
  listEvents,
  type JobRow,
  type LedgerRow,
} from '@sluice/storage';
import type { TestDatabase } from '@sluice/storage/testing';
import { startFakeProvider, waitFor, type FakeProvider, type LedgerRecord } from '@sluice/testkit';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import type { z } from 'zod';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { createWorker, type CreateWorkerOptions, type Worker } from '../create-worker.js';
import type { LogFields, WorkerLogger } from '../logger.js';
import { paidHandler, paidJob, submitPaidJobs } from './paid-job.js';
import { hooksFromEnv } from './seeded-bugs.js';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: LogFields | undefined;
}

export interface PaidHarness {
  readonly provider: FakeProvider;
  readonly db: TestDatabase;
  readonly logs: LogLine[];
  readonly lines: string[];
  submit(inputs: readonly z.input<typeof paidJob.input>[]): Promise<string[]>;
  /** A started worker, stopped when the test ends. */
  worker(opts?: Partial<CreateWorkerOptions>): Promise<Worker>;
  /** Waits until every job is in a terminal state; returns the rows in order. */
  settle(ids: readonly string[], timeoutMs?: number): Promise<JobRow[]>;
  ledger(jobId: string): Promise<LedgerRow[]>;
  /** The provider's own records of one job (requests, billed or not). */
  billing(jobId: string): Promise<LedgerRecord[]>;
  events: typeof listEvents;
}

/** Starts one fake provider process per suite; the database comes from `describeEachDialect`. */
export function usePaidHarness(db: () => TestDatabase): () => PaidHarness {
  let provider: FakeProvider | undefined;
  beforeAll(async () => {
    provider = await startFakeProvider({ asyncDelayMs: 60 });
  });
  afterAll(async () => {
    await provider?.[Symbol.asyncDispose]();
  });
  return () => {
    if (!provider) throw new Error('fake provider not started');
    const p = provider;
    const logs: LogLine[] = [];
    const lines: string[] = [];
    const logger: WorkerLogger = {
      debug: (message, fields) => logs.push({ level: 'debug', message, fields }),
      info: (message, fields) => logs.push({ level: 'info', message, fields }),
      warn: (message, fields) => logs.push({ level: 'warn', message, fields }),
      error: (message, fields) => logs.push({ level: 'error', message, fields }),
    };
    const { database } = db();
    return {
      provider: p,
      db: db(),
      logs,
      lines,
      submit: (inputs) => submitPaidJobs(database, inputs, (tx, ps) => enqueue(tx, ps)),
      async worker(opts = {}) {
        const handler = paidHandler({
          providerUrl: p.url,
          workerId: 'in-process',
          log: (l) => lines.push(l),
        });
        const worker = createWorker({
          hooks: hooksFromEnv(database),
          jobs: { [paidJob.kind]: paidJob },
          handlers: { [paidJob.kind]: { v1: handler } },
          database,
          concurrency: 4,
          unitConcurrency: 2,
          leaseMs: 1500,
          renewEveryMs: 300,
          sweepEveryMs: 0,
          retryBackoff: { baseMs: 20, maxMs: 100 },
          logger,
          runtime: (ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 10, blockMs: 100 }),
          ...opts,
        });
        onTestFinished(() => worker.stop({ deadlineMs: 2000 }));
        await worker.start();
        return worker;
      },
      async settle(ids, timeoutMs = 15_000) {
        await waitFor(
          async () =>
            [...(await getJobsByIds(database.db, ids)).values()].every((r) =>
              isTerminalState(r.state),
            ),
          { timeoutMs, message: 'jobs terminal' },
        );
        const rows = await getJobsByIds(database.db, ids);
        return ids.map((id) => rows.get(id) as JobRow);
      },
      ledger: (jobId) => callsForJob(database.db, jobId),
      billing: (jobId) => p.ledger({ jobId }),
      events: listEvents,
    };
  };
}

/** Billed provider records per unit key. */
export function billsByUnit(records: readonly LedgerRecord[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of records) if (r.billed) out.set(r.unitKey, (out.get(r.unitKey) ?? 0) + 1);
  return out;
}
