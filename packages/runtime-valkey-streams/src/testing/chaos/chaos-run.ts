// The chaos soak on Valkey Streams + PostgreSQL: a private redis-server behind a fault proxy, a
// fresh database, the fake provider as its own process (its billing ledger outlives everything
// else), an outbox pump standing in for the gateway's reconciler, and 4 worker processes running
// `xp.paid` jobs (sync calls that are ambiguous, retry-safe calls, pollable async calls, and an
// asset per unit). N jobs are submitted the way the accept path does; while they run the faults
// of chaos-faults.ts fire; then every job must settle and chaos-audit.ts reads what was left.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TERMINAL_STATES, formatJobId, type MessagePointer } from '@sluice/contracts';
import {
  addToOutbox,
  createLocalBlobStore,
  insertJob,
  isoIn,
  removeFromOutbox,
  transitionJob,
  type SluiceDatabase,
} from '@sluice/storage';
import { faultProxy, sleep, startFakeProvider } from '@sluice/testkit';
import type { z } from 'zod';
import { redispatchUnfinished, startOutboxPump, type paidJob } from '@sluice/worker/conformance';
import { auditChaos, type ChaosFigures } from './chaos-audit.js';
import { startChaos, WorkerPool } from './chaos-faults.js';
import { createStreamsFixture } from '../streams-fixture.js';
import { PAID_CHILD_RUNTIME } from '../paid-runtime-entry.js';

export interface ChaosOptions {
  jobs: number;
  /** A migrated database (PostgreSQL for the soak) and its URL for the worker processes. */
  database: SluiceDatabase;
  dbUrl: string;
  workers?: number;
  leaseMs?: number;
  killEveryMs?: number;
  /** How long to wait for the last job once nothing settles any more. */
  stallMs?: number;
  log?: (line: string) => void;
}

/** The job mix: 40 % ambiguous sync calls, 30 % retry-safe, 30 % pollable async; 1-3 units. */
export function chaosInput(i: number): z.input<typeof paidJob.input> {
  const call = i % 10 < 4 ? 'sync' : i % 10 < 7 ? 'safe' : 'async';
  return { call, units: 1 + (i % 3), asset: true, finalAsset: i % 4 === 0 };
}

const OUTBOX_GRACE_MS = 2_000;

/** Row, dispatch transition and outbox row in one transaction, XADD after the commit. */
async function submit(
  database: SluiceDatabase,
  dispatch: (p: readonly MessagePointer[]) => Promise<unknown>,
  from: number,
  count: number,
): Promise<string[]> {
  const pointers = Array.from({ length: count }, () => ({
    jobId: formatJobId('v1'),
    kind: 'xp.paid',
    version: 'v1',
    tenantId: 'acme',
  }));
  await database.transaction(async (tx) => {
    for (const [n, p] of pointers.entries()) {
      await insertJob(tx, {
        id: p.jobId,
        tenantId: p.tenantId,
        kind: p.kind,
        version: p.version,
        input: chaosInput(from + n),
        inputHash: p.jobId,
        maxAttempts: 5,
      });
      await transitionJob(tx, { id: p.jobId, event: 'dispatch' });
    }
    await addToOutbox(
      tx,
      pointers.map((p) => p.jobId),
      isoIn(OUTBOX_GRACE_MS),
    );
  });
  // Redis down or blackholed: the outbox row stays and the pump dispatches after the grace.
  const sent = await Promise.race([
    dispatch(pointers).then(
      () => true,
      () => false,
    ),
    sleep(3000).then(() => false),
  ]);
  if (sent)
    await removeFromOutbox(
      database.db,
      pointers.map((p) => p.jobId),
    );
  return pointers.map((p) => p.jobId);
}

export interface ChaosResult {
  figures: ChaosFigures;
  output: string;
}

export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const log = o.log ?? ((l: string) => console.log(`[chaos] ${l}`));
  const workers = o.workers ?? 4;
  const leaseMs = o.leaseMs ?? 1500;
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'sluice-chaos-'));
  const blobDir = join(dir, 'blobs');
  // The fixture's own client (the dispatch side) talks to the server directly: only the
  // workers' link goes through the proxy that gets blackholed.
  const fx = await createStreamsFixture({ persistence: 'none' });
  const { server } = fx;
  const proxy = await faultProxy({ host: server.host, port: server.port });
  const provider = await startFakeProvider({ asyncDelayMs: 300 });
  const { database } = o;
  const pump = startOutboxPump(database, fx.dispatch, 200);
  const pool = new WorkerPool((id) => ({
    RUNTIME_MODULE: PAID_CHILD_RUNTIME.pathname,
    DB_URL: o.dbUrl,
    REDIS_URL: proxy.url('redis'),
    PROVIDER_URL: provider.url,
    BLOB_DIR: blobDir,
    WORKER_ID: id,
    LEASE_MS: String(leaseMs),
    STAGING_SWEEP_MS: '500',
    CONCURRENCY: '8',
    MAINTAIN_EVERY_MS: '1000',
    COMMAND_TIMEOUT_MS: '2000',
  }));
  try {
    await Promise.all(Array.from({ length: workers }, (_, i) => pool.start(`chaos-${i + 1}`)));
    log(`${workers} workers ready in ${Date.now() - started} ms; submitting ${o.jobs} jobs`);
    const terminal = TERMINAL_STATES as readonly string[];
    let settled = 0;
    const countSettled = async () => {
      const r = await database.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('state', 'in', terminal)
        .executeTakeFirstOrThrow();
      settled = Number(r.n);
      return settled;
    };
    const chaos = startChaos({
      pool,
      server,
      proxy,
      leaseMs,
      killEveryMs: o.killEveryMs ?? 3000,
      progress: async () => (await countSettled()) / o.jobs,
      redispatch: () => redispatchUnfinished(database, fx.dispatch),
      log,
    });
    const ids: string[] = [];
    const runStarted = Date.now();
    for (let i = 0; i < o.jobs; i += 100) {
      ids.push(...(await submit(database, fx.dispatch, i, Math.min(100, o.jobs - i))));
    }
    // Settled when every job is terminal; given up when nothing settled for stallMs.
    let last = -1;
    let lastChange = Date.now();
    let lastLog = 0;
    while (true) {
      const n = await countSettled();
      if (n !== last) [last, lastChange] = [n, Date.now()];
      if (Date.now() - lastLog > 5000) {
        lastLog = Date.now();
        log(`${n}/${o.jobs} settled after ${Math.round((Date.now() - runStarted) / 1000)} s`);
      }
      if (n >= o.jobs || Date.now() - lastChange > (o.stallMs ?? 60_000)) break;
      await sleep(250);
    }
    const runMs = Date.now() - runStarted;
    await chaos.stop();
    // Settled jobs' staging blobs belong to dead attempts: give the sweepers a few rounds.
    const blobs = createLocalBlobStore(blobDir);
    const stagingLeft = async () => {
      for await (const _ of blobs.list('staging/')) return true;
      return false;
    };
    const sweepUntil = Date.now() + 15_000;
    while ((await stagingLeft()) && Date.now() < sweepUntil) await sleep(250);
    const figures = await auditChaos({
      database,
      blobs,
      ledger: provider.readLedgerFile(),
      ids,
      faults: chaos.counts,
      runMs,
    });
    return { figures, output: pool.allOutput() };
  } finally {
    clearInterval(pump);
    await pool.stopAll().catch(() => {});
    await fx.dispose();
    await proxy.close();
    await provider[Symbol.asyncDispose]();
    rmSync(dir, { recursive: true, force: true });
  }
}
