// The chaos soak on a runtime whose dispatch half is the gateway's, over PostgreSQL: the
// runtime's private broker (its adapter opens it) behind a fault proxy, a fresh database, the
// fake provider as its own process (its billing ledger outlives everything else), an outbox pump
// standing in for the gateway's reconciler, and 4 worker processes running `xp.paid` jobs (sync
// calls that are ambiguous, retry-safe calls, pollable async calls, and an asset per unit). N jobs
// are submitted the way the accept path does; while they run the faults of chaos-faults.ts fire;
// then every job must settle and chaos-audit.ts reads what was left.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TERMINAL_STATES } from '@sluice/contracts';
import { createLocalBlobStore, type SluiceDatabase } from '@sluice/storage';
import { faultProxy, sleep, startFakeProvider } from '@sluice/testkit';
import type { z } from 'zod';
import { startOutboxPump } from '../outbox-pump.js';
import type { paidJob } from '../paid-job.js';
import { redispatchUnfinished, submitThroughOutbox } from '../submit-xp-jobs.js';
import type { ChaosAdapter } from './chaos-adapter.js';
import { auditChaos, type ChaosFigures } from './chaos-audit.js';
import { startChaos, WorkerPool } from './chaos-faults.js';

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

export interface ChaosResult {
  figures: ChaosFigures;
  output: string;
}

export async function runChaos(adapter: ChaosAdapter, o: ChaosOptions): Promise<ChaosResult> {
  const log = o.log ?? ((l: string) => console.log(`[chaos] ${l}`));
  const workers = o.workers ?? 4;
  const leaseMs = o.leaseMs ?? 1500;
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'sluice-chaos-'));
  const blobDir = join(dir, 'blobs');
  // The broker's own client (the dispatch side) talks to the server directly: only the
  // workers' link goes through the proxy that gets blackholed.
  const broker = await adapter.open();
  const proxy = await faultProxy({ host: broker.host, port: broker.port });
  const provider = await startFakeProvider({ asyncDelayMs: 300 });
  const { database } = o;
  const dispatch = (p: Parameters<typeof broker.dispatch>[0]) => broker.dispatch(p);
  const pump = startOutboxPump(database, dispatch, 200);
  const pool = new WorkerPool((id) => ({
    RUNTIME_MODULE: adapter.runtimeModule.pathname,
    DB_URL: o.dbUrl,
    PROVIDER_URL: provider.url,
    BLOB_DIR: blobDir,
    WORKER_ID: id,
    LEASE_MS: String(leaseMs),
    STAGING_SWEEP_MS: '500',
    CONCURRENCY: '8',
    ...broker.workerEnv((protocol) => proxy.url(protocol)),
  }));
  try {
    await Promise.all(Array.from({ length: workers }, (_, i) => pool.start(`chaos-${i + 1}`)));
    log(`${workers} workers ready in ${Date.now() - started} ms; submitting ${o.jobs} jobs`);
    const terminal = TERMINAL_STATES as readonly string[];
    const countSettled = async () => {
      const r = await database.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('state', 'in', terminal)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    };
    const chaos = startChaos({
      adapter,
      broker,
      pool,
      proxy,
      leaseMs,
      killEveryMs: o.killEveryMs ?? 3000,
      progress: async () => (await countSettled()) / o.jobs,
      redispatch: () => redispatchUnfinished(database, dispatch),
      log,
    });
    const ids: string[] = [];
    const runStarted = Date.now();
    for (let from = 0; from < o.jobs; from += 100) {
      const batch = {
        kind: 'xp.paid',
        count: Math.min(100, o.jobs - from),
        input: (n: number) => chaosInput(from + n),
        inputHash: (_: number, jobId: string) => jobId,
      };
      // The broker down or blackholed: the outbox row stays and the pump dispatches it.
      ids.push(...(await submitThroughOutbox(database, dispatch, batch, { giveUpAfterMs: 3000 })));
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
    await broker.dispose();
    await proxy.close();
    await provider[Symbol.asyncDispose]();
    rmSync(dir, { recursive: true, force: true });
  }
}
