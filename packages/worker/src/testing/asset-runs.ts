// Cross-process runs for the asset invariant tests: `xp.paid` jobs that write assets, worker
// processes (paid-worker-child.ts, embedded runtime) that SIGKILL themselves at crash points one
// after another, then one that finishes everything while its staging sweeper runs. What is left
// in the blob folder and the database is then audited (asset-fixture.ts `auditAssets`).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isTerminalState } from '@sluice/contracts';
import {
  createLocalBlobStore,
  enqueue,
  getJobsByIds,
  type BlobStore,
  type JobRow,
} from '@sluice/storage';
import type { TestDatabase } from '@sluice/storage/testing';
import { spawnNode, startFakeProvider, waitFor, type FakeProvider } from '@sluice/testkit';
import { afterAll, beforeAll } from 'vitest';
import type { z } from 'zod';
import { auditAssets, type AssetAudit } from './asset-fixture.js';
import { submitPaidJobs, type paidJob } from './paid-job.js';

export const PAID_WORKER_ENTRY = new URL('./paid-worker-child.ts', import.meta.url);

/** Generous on a loaded 2-core box: a takeover waits for this lease to pass. */
export const ASSET_RUN_LEASE_MS = 1500;

export interface AssetRunEnv {
  readonly provider: FakeProvider;
  readonly blobDir: string;
  readonly blobs: BlobStore;
  /** Environment for a paid worker child on this database. */
  env(db: TestDatabase, workerId: string): Record<string, string>;
}

/** A fake provider process and a blob folder for the suite. */
export function useAssetRunEnv(): () => AssetRunEnv {
  let provider: FakeProvider | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-asset-runs-'));
    provider = await startFakeProvider({ asyncDelayMs: 60 });
  });
  afterAll(async () => {
    await provider?.[Symbol.asyncDispose]();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!provider || !dir) throw new Error('asset run env not ready');
    const p = provider;
    const blobDir = join(dir, 'blobs');
    return {
      provider: p,
      blobDir,
      blobs: createLocalBlobStore(blobDir),
      env: (db, workerId) => ({
        DB_URL: db.url,
        PROVIDER_URL: p.url,
        BLOB_DIR: blobDir,
        WORKER_ID: workerId,
        LEASE_MS: String(ASSET_RUN_LEASE_MS),
        STAGING_SWEEP_MS: '250',
      }),
    };
  };
}

export interface AssetRun {
  ids: string[];
  rows: JobRow[];
  /** Every worker's stdout and stderr, in order. */
  output: string;
  audits: Map<string, AssetAudit>;
}

/**
 * Submits the jobs, runs one worker per crash spec (`name@n`, each must SIGKILL itself), then a
 * worker that finishes every job; waits until the sweeper emptied staging, and audits each job.
 */
export async function runAssetJobs(
  db: TestDatabase,
  env: AssetRunEnv,
  inputs: readonly z.input<typeof paidJob.input>[],
  crashes: readonly string[],
): Promise<AssetRun> {
  const ids = await submitPaidJobs(db.database, inputs, (tx, ps) => enqueue(tx, ps));
  const outputs: string[] = [];
  for (const [i, spec] of crashes.entries()) {
    // No ready line: the worker may reach its crash point before printing it.
    const worker = await spawnNode(PAID_WORKER_ENTRY, {
      env: { ...env.env(db, `crash${i}`), CRASHPOINTS: spec },
    });
    const exit = await Promise.race([
      worker.exited,
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 60_000)),
    ]);
    outputs.push(worker.output());
    if (exit === 'timeout' || exit.signal !== 'SIGKILL') {
      await worker.kill();
      throw new Error(`worker ${i} did not crash at ${spec}:\n${worker.output()}`);
    }
  }
  const finisher = await spawnNode(PAID_WORKER_ENTRY, {
    env: env.env(db, 'finisher'),
    readyLine: /^READY /m,
    readyTimeoutMs: 30_000,
  });
  try {
    await waitFor(
      async () =>
        [...(await getJobsByIds(db.database.db, ids)).values()].every((r) =>
          isTerminalState(r.state),
        ),
      { timeoutMs: 60_000, message: 'jobs terminal' },
    );
    // Dead attempts' staging blobs are the sweeper's (every 250 ms in the finisher).
    await waitFor(
      async () => {
        for (const id of ids) {
          if ((await auditAssets(db.database, env.blobs, { id, tenantId: 'acme' })).staging.length)
            return false;
        }
        return true;
      },
      { timeoutMs: 20_000, message: 'staging swept' },
    );
  } finally {
    await finisher.stop(5000).catch(() => finisher.kill());
    outputs.push(finisher.output());
  }
  const rows = await getJobsByIds(db.database.db, ids);
  const audits = new Map<string, AssetAudit>();
  for (const id of ids)
    audits.set(id, await auditAssets(db.database, env.blobs, { id, tenantId: 'acme' }));
  return {
    ids,
    rows: ids.map((id) => rows.get(id) as JobRow),
    output: outputs.join('\n'),
    audits,
  };
}

/** Published and reused shas per (job, unit) from the workers' `ASSET` lines, in order. */
export function assetLines(
  output: string,
): { jobId: string; scope: string; how: string; sha: string }[] {
  return [...output.matchAll(/^ASSET (\S+) (\S+) (published|reused) ([0-9a-f]{64})$/gm)].map(
    (m) => ({
      jobId: m[1] as string,
      scope: m[2] as string,
      how: m[3] as string,
      sha: m[4] as string,
    }),
  );
}
