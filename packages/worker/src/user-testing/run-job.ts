// `runJob`: one job through the real worker — createWorker, the embedded runtime, the stage
// runner, the provider guard, the asset protocol — on an in-memory SQLite database and a
// temporary blob folder, and what it left behind: the final job row, its events, the
// provider-call ledger and the published assets. With `crashAt`, the first worker dies at that
// crash point (crash.ts) and a second one takes the job over, as after a SIGKILL.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  formatJobId,
  isTerminalState,
  type AnyJobDefinition,
  type BatchJob,
  type JobEvent,
  type JobState,
} from '@sluice/contracts';
import {
  assetsForJob,
  callsForJob,
  createLocalBlobStore,
  enqueue,
  getJobsByIds,
  insertJob,
  listEvents,
  migrate,
  openDatabase,
  transitionJob,
  type AssetRow,
  type BlobStore,
  type JobRow,
  type LedgerRow,
  type SluiceDatabase,
} from '@sluice/storage';
import { z } from 'zod';

/** What one run of `J` takes: its input, or a batch kind's array of inputs (one per submit). */
export type RunJobInput<J extends AnyJobDefinition> = J extends BatchJob
  ? z.input<J['input']>[]
  : z.input<J['input']>;
/** What one run of `J` returns once parsed: its output, or a batch kind's one per input. */
export type RunJobOutput<J extends AnyJobDefinition> = J extends BatchJob
  ? z.output<J['output']>[]
  : z.output<J['output']>;
import type { Handler } from '../attempt/define-handler.js';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { createWorker, type Worker } from '../create-worker.js';
import type { CrashPoint } from '../hooks.js';
import type { LogFields, WorkerLogger } from '../logger.js';
import { crashSwitch, mortalBlobs, mortalDatabase } from './crash.js';

export interface RunJobOptions<J extends AnyJobDefinition> {
  job: J;
  handler: Handler<J>;
  /** The input; for a batch kind, the batch's inputs (what one run of it receives). */
  input: RunJobInput<J>;
  /** The version to run (default the job's current one). */
  version?: string;
  tenantId?: string;
  /** The first worker dies at the `hit`-th pass (default 1st) of this crash point. */
  crashAt?: { point: CrashPoint; hit?: number };
  /**
   * The crashing worker's lease (default 400 ms): how soon its job is taken over. The other
   * workers hold a long lease, so a slow machine cannot make a survivor lose its job and add an
   * attempt the test did not cause.
   */
  leaseMs?: number;
  /** Give up waiting for a final or parked state after this long (default 15 s). */
  timeoutMs?: number;
}

export interface RunAsset extends AssetRow {
  bytes: Uint8Array;
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: LogFields | undefined;
}

export interface JobRun<J extends AnyJobDefinition> {
  id: string;
  state: JobState;
  /** The job's output when it succeeded (parsed with its output schema by the worker). */
  output: RunJobOutput<J> | null;
  row: JobRow;
  events: JobEvent[];
  /** Every provider call the guard recorded, in order. */
  ledger: LedgerRow[];
  assets: RunAsset[];
  /** Where the first worker died, if `crashAt` was reached. */
  crashedAt: CrashPoint | undefined;
  logs: LogLine[];
}

/** Log fields as text, errors by their message (JSON.stringify gives `{}` for an Error). */
function describeFields(fields: LogFields | undefined): string {
  return JSON.stringify(fields ?? {}, (_key, value: unknown) =>
    value instanceof Error ? `${value.name}: ${value.message}` : value,
  );
}

async function readAll(blobs: BlobStore, key: string): Promise<Uint8Array> {
  const stream = await blobs.get(key);
  if (!stream) throw new Error(`asset blob ${key} is missing`);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function insertRunnable(
  database: SluiceDatabase,
  job: AnyJobDefinition,
  version: string,
  tenantId: string,
  input: unknown,
) {
  const schema = job.batch === undefined ? job.input : z.array(job.input as z.ZodType);
  const parsed = z.safeParse(schema, input);
  if (!parsed.success) throw new Error(`input does not match ${job.kind}: ${parsed.error.message}`);
  const id = formatJobId(version);
  await database.transaction(async (tx) => {
    await insertJob(tx, {
      id,
      tenantId,
      kind: job.kind,
      version,
      input,
      inputHash: id,
      maxAttempts: job.maxAttempts,
    });
    await transitionJob(tx, { id, event: 'dispatch' });
    await enqueue(tx, [{ jobId: id, kind: job.kind, version, tenantId }]);
  });
  return id;
}

const SURVIVOR_LEASE_MS = 30_000;

export async function runJob<J extends AnyJobDefinition>(
  opts: RunJobOptions<J>,
): Promise<JobRun<J>> {
  const { job, handler } = opts;
  const version = opts.version ?? job.versions.current;
  const leaseMs = opts.leaseMs ?? 400;
  const dir = mkdtempSync(join(tmpdir(), 'sluice-run-job-'));
  const database = openDatabase({ url: ':memory:', walCheckpointEveryMs: 0 });
  const blobs = createLocalBlobStore(join(dir, 'blobs'));
  const logs: LogLine[] = [];
  const logger: WorkerLogger = {
    info: (message, fields) => logs.push({ level: 'info', message, fields }),
    warn: (message, fields) => logs.push({ level: 'warn', message, fields }),
    error: (message, fields) => logs.push({ level: 'error', message, fields }),
  };
  const workers: Worker[] = [];
  const start = async (
    name: string,
    db: SluiceDatabase,
    store: BlobStore,
    at?: (p: CrashPoint) => void,
    workerLeaseMs = SURVIVOR_LEASE_MS,
  ) => {
    const worker = createWorker({
      jobs: { [job.kind]: job },
      handlers: { [job.kind]: { [version]: handler } },
      database: db,
      blobs: store,
      runtime: (ctx) => createEmbeddedRuntime({ database: db, ...ctx, pollMs: 10, blockMs: 50 }),
      workerId: name,
      concurrency: 1,
      leaseMs: workerLeaseMs,
      renewEveryMs: Math.max(50, Math.floor(workerLeaseMs / 4)),
      sweepEveryMs: 0,
      stagingSweepEveryMs: 0,
      retryBackoff: { baseMs: 10, maxMs: 50 },
      metrics: { processMetrics: false },
      logger,
      ...(at ? { hooks: { at } } : {}),
    });
    workers.push(worker);
    await worker.start();
  };
  let crashedAt: CrashPoint | undefined;
  try {
    await migrate(database);
    const id = await insertRunnable(database, job, version, opts.tenantId ?? 'test', opts.input);
    if (opts.crashAt) {
      const { point, hit } = opts.crashAt;
      const sw = crashSwitch(point, hit);
      void sw.crashed.then(async (p) => {
        crashedAt = p;
        // The survivor: takes the job over once the dead worker's lease lapses.
        await start('survivor', database, blobs);
      });
      await start(
        'doomed',
        mortalDatabase(database, sw, point),
        mortalBlobs(blobs, sw, point),
        (p) => sw.at(p),
        leaseMs,
      );
    } else {
      await start('worker', database, blobs);
    }
    const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
    let row: JobRow | undefined;
    for (;;) {
      row = (await getJobsByIds(database.db, [id])).get(id);
      if (row && isTerminalState(row.state)) break;
      if (Date.now() > deadline)
        throw new Error(
          `job ${id} still ${row?.state ?? 'missing'} after ${opts.timeoutMs ?? 15_000} ms${crashedAt ? ` (crashed at ${crashedAt})` : ''}; last log lines:\n${logs
            .slice(0, 5)
            .map((l) => `${l.level} ${l.message} ${describeFields(l.fields)}`)
            .join('\n')}`,
        );
      await new Promise((r) => setTimeout(r, 10));
    }
    // A crash test whose crash never happened proves nothing: say so instead of passing.
    if (opts.crashAt && crashedAt === undefined)
      throw new Error(
        `crash point ${opts.crashAt.point} (pass ${opts.crashAt.hit ?? 1}) was never reached; the job ended ${row.state}`,
      );
    const assetRows = await assetsForJob(database.db, id);
    return {
      id,
      state: row.state,
      output: row.state === 'succeeded' ? (row.output as RunJobOutput<J>) : null,
      row,
      events: await listEvents(database.db, id),
      ledger: await callsForJob(database.db, id),
      assets: await Promise.all(
        assetRows.map(async (a) => ({ ...a, bytes: await readAll(blobs, a.finalKey) })),
      ),
      crashedAt,
      logs,
    };
  } finally {
    // A dead worker's stop fails its writes; that is expected of a corpse.
    await Promise.all(workers.map((w) => w.stop({ deadlineMs: 200 }).catch(() => {})));
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
