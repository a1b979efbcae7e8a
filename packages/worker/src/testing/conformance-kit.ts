// What the runtime conformance suite needs from one runtime (the harness), and the helpers its
// cases share: submitting jobs the way the accept path does (row, dispatch transition, pointer),
// running workers with short lease settings, and reading back what the database recorded.

import {
  defineJob,
  formatJobId,
  isTerminalState,
  type AnyJobDefinition,
  type JobEvent,
  type MessagePointer,
  type RuntimeCapabilities,
  type RuntimeConsumer,
  type VersionKey,
} from '@sluice/contracts';
import {
  getJobsByIds,
  insertJob,
  listEvents,
  transitionJob,
  type BlobStore,
  type Db,
  type JobRow,
  type SluiceDatabase,
} from '@sluice/storage';
import { z } from 'zod';
import { createWorker, type CreateWorkerOptions, type Worker } from '../create-worker.js';
import type { Handler } from '../attempt/define-handler.js';
import { silentLogger } from '../logger.js';
import { hooksFromEnv } from './seeded-bugs.js';

/** Switches a harness wires into its transport (not around the consumer), to fail like a real outage. */
export interface TransportFaults {
  failReads: boolean;
}

export interface ConsumerSpec {
  workerId: string;
  versions: readonly VersionKey[];
  leaseMs: number;
  faults?: TransportFaults | undefined;
}

export interface ConformanceHarness {
  readonly capabilities: RuntimeCapabilities;
  readonly database: SluiceDatabase;
  readonly blobs: BlobStore;
  /** A consumer of this runtime for one worker. */
  consumer(spec: ConsumerSpec): RuntimeConsumer;
  /** Hands pointers to the runtime; inside the accept transaction when the runtime dispatches there. */
  dispatch(pointers: readonly MessagePointer[], tx?: Db): Promise<void>;
  /** Deliveries of this kind the transport still holds (queued or claimed, not finished). */
  pending(kind: string): Promise<number>;
  dispose(): Promise<void>;
}

/** Short settings so the suite runs in seconds. */
export const TIMING = { leaseMs: 700, renewEveryMs: 150 } as const;

export const TENANT = 'acme';

export function testJob(kind: string, opts: { maxAttempts?: number; next?: string } = {}) {
  return defineJob({
    kind,
    versions: { current: 'v1', ...(opts.next ? { next: opts.next } : {}) },
    input: z.object({ n: z.number().int(), ms: z.number().int().optional() }),
    output: z.object({ n: z.number().int() }),
    progress: z.object({ step: z.number() }),
    maxAttempts: opts.maxAttempts ?? 5,
  });
}

export interface SubmitOptions {
  version?: string;
  fileIds?: string[];
  maxAttempts?: number;
  /** Stored on the row and carried by the pointer (dispatch routes by it). */
  priority?: number;
}

/** Submits jobs like the accept path: row + first event, `dispatch`, pointer — in one transaction where the runtime allows. */
export async function submitJobs(
  h: ConformanceHarness,
  job: AnyJobDefinition,
  inputs: readonly unknown[],
  opts: SubmitOptions = {},
): Promise<string[]> {
  const version = opts.version ?? job.versions.current;
  const pointers: MessagePointer[] = inputs.map(() => ({
    jobId: formatJobId(version),
    kind: job.kind,
    version,
    tenantId: TENANT,
    ...(opts.priority === undefined ? {} : { priority: opts.priority }),
  }));
  const inTx = h.capabilities.dispatchesInTransaction;
  await h.database.transaction(async (tx) => {
    for (const [i, p] of pointers.entries()) {
      await insertJob(tx, {
        id: p.jobId,
        tenantId: TENANT,
        kind: p.kind,
        version,
        input: inputs[i],
        inputHash: `h${i}`,
        fileIds: opts.fileIds,
        maxAttempts: opts.maxAttempts ?? job.maxAttempts,
        priority: opts.priority,
      });
      const r = await transitionJob(tx, { id: p.jobId, event: 'dispatch' });
      if (!r.ok) throw new Error(`dispatch of ${p.jobId} did not apply`);
    }
    if (inTx) await h.dispatch(pointers, tx);
  });
  if (!inTx) await h.dispatch(pointers);
  return pointers.map((p) => p.jobId);
}

export type TestWorkerOptions = Partial<
  Omit<CreateWorkerOptions, 'runtime' | 'jobs' | 'handlers'>
> & {
  faults?: TransportFaults;
  /** A consumer built by the test instead of from the handlers' versions. */
  consumer?: RuntimeConsumer;
};

/** A worker on this runtime with the suite's short settings; stopped when the test ends. */
export function startTestWorker(
  h: ConformanceHarness,
  handlers: Record<string, Record<string, Handler>>,
  opts: TestWorkerOptions,
  cleanup: (fn: () => Promise<void>) => void,
): Worker {
  const jobs = Object.fromEntries(
    Object.values(handlers).flatMap((vs) => Object.values(vs).map((hd) => [hd.job.kind, hd.job])),
  );
  const { faults, consumer, ...rest } = opts;
  const worker = createWorker({
    hooks: hooksFromEnv(h.database),
    jobs,
    handlers,
    database: h.database,
    blobs: h.blobs,
    concurrency: 4,
    leaseMs: TIMING.leaseMs,
    renewEveryMs: TIMING.renewEveryMs,
    logger: silentLogger,
    sweepEveryMs: 0,
    retryBackoff: { baseMs: 20, maxMs: 100 },
    ...rest,
    runtime:
      consumer ??
      ((ctx) =>
        h.consumer({
          workerId: ctx.workerId,
          versions: ctx.versions,
          leaseMs: ctx.leaseMs,
          faults,
        })),
  });
  cleanup(() => worker.stop({ deadlineMs: 2000 }));
  return worker;
}

export async function jobRows(h: ConformanceHarness, ids: readonly string[]): Promise<JobRow[]> {
  const rows = await getJobsByIds(h.database.db, ids);
  return ids.map((id) => {
    const row = rows.get(id);
    if (!row) throw new Error(`job ${id} vanished`);
    return row;
  });
}

export async function allTerminal(h: ConformanceHarness, ids: readonly string[]): Promise<boolean> {
  return (await jobRows(h, ids)).every((r) => isTerminalState(r.state));
}

export function events(h: ConformanceHarness, id: string): Promise<JobEvent[]> {
  return listEvents(h.database.db, id);
}

/** State-changing events into a terminal state: exactly one per finished job. */
export async function terminalEvents(h: ConformanceHarness, id: string): Promise<JobEvent[]> {
  return (await events(h, id)).filter((e) => 'to' in e && isTerminalState(e.to));
}

/** A consumer that delegates to `inner` except where `overrides` say (works for class-based consumers too). */
export function wrapConsumer(
  inner: RuntimeConsumer,
  overrides: Partial<
    Pick<RuntimeConsumer, 'init' | 'read' | 'renew' | 'ack' | 'release' | 'deadLetter' | 'close'>
  >,
): RuntimeConsumer {
  return {
    name: inner.name,
    capabilities: inner.capabilities,
    init: overrides.init ?? (() => inner.init()),
    read: overrides.read ?? ((max, signal) => inner.read(max, signal)),
    renew: overrides.renew ?? ((ds) => inner.renew(ds)),
    ack: overrides.ack ?? ((ds) => inner.ack(ds)),
    release: overrides.release ?? ((ds, ms) => inner.release(ds, ms)),
    deadLetter: overrides.deadLetter ?? ((d, reason) => inner.deadLetter(d, reason)),
    close: overrides.close ?? (() => inner.close()),
  };
}

/** A consumer whose `ack` checks that every acknowledged job's outcome is already stored. */
export function ackAfterStoredCheck(
  h: ConformanceHarness,
  consumer: RuntimeConsumer,
  violations: string[],
): RuntimeConsumer {
  return wrapConsumer(consumer, {
    async ack(ds) {
      const ids = ds.flatMap((d) => (d.pointer ? [d.pointer.jobId] : []));
      const rows = await getJobsByIds(h.database.db, ids);
      for (const id of ids) {
        const state = rows.get(id)?.state;
        if (state && !isTerminalState(state)) violations.push(`${id} acked while ${state}`);
      }
      return consumer.ack(ds);
    },
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
