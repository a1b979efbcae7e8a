// Test helpers for the asset protocol: a job row in `running` (and takeovers of it, as another
// attempt would do), a local blob folder, and readers for what the folder and the database hold.

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatJobId } from '@sluice/contracts';
import {
  assetsForJob,
  createLocalBlobStore,
  liveAttemptOf,
  stagingPrefix,
  insertJob,
  transitionJob,
  type AssetRow,
  type BlobStore,
  type SluiceDatabase,
} from '@sluice/storage';

export interface RunningAttempt {
  id: string;
  tenantId: string;
  attemptId: string;
  epoch: number;
}

/** Inserts a job and starts it: the attempt holds the job (state running, its epoch and id). */
export async function startJob(
  database: SluiceDatabase,
  tenantId = 'acme',
): Promise<RunningAttempt> {
  const id = formatJobId('v1');
  await database.transaction(async (tx) => {
    await insertJob(tx, {
      id,
      tenantId,
      kind: 'x.asset',
      version: 'v1',
      input: {},
      inputHash: id,
      maxAttempts: 5,
    });
    await transitionJob(tx, { id, event: 'dispatch' });
  });
  return nextAttempt(database, { id, tenantId }, 'start');
}

/** Another attempt takes the job: `retry` then `start` (the previous attempt is dead). */
export async function takeOver(
  database: SluiceDatabase,
  job: { id: string; tenantId: string },
): Promise<RunningAttempt> {
  await database.transaction((tx) => transitionJob(tx, { id: job.id, event: 'retry' }));
  return nextAttempt(database, job, 'start');
}

async function nextAttempt(
  database: SluiceDatabase,
  job: { id: string; tenantId: string },
  event: 'start',
): Promise<RunningAttempt> {
  const r = await database.transaction((tx) => transitionJob(tx, { id: job.id, event }));
  if (!r.ok || !r.job.attemptId) throw new Error(`${event} failed`);
  return { id: job.id, tenantId: job.tenantId, attemptId: r.job.attemptId, epoch: r.job.epoch };
}

export interface BlobFolder {
  readonly root: string;
  readonly blobs: BlobStore;
  keys(prefix?: string): Promise<string[]>;
  bytes(key: string): Promise<Buffer | undefined>;
  dispose(): void;
}

export function createBlobFolder(): BlobFolder {
  const root = mkdtempSync(join(tmpdir(), 'sluice-blobs-'));
  const blobs = createLocalBlobStore(root);
  return {
    root,
    blobs,
    async keys(prefix = '') {
      const out: string[] = [];
      for await (const k of blobs.list(prefix)) out.push(k);
      return out.sort();
    },
    async bytes(key) {
      const body = await blobs.get(key);
      return body ? Buffer.from(await new Response(body).arrayBuffer()) : undefined;
    },
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

export const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

/** Problems between a job's asset rows and its blobs: ghost rows, wrong sizes or hashes. */
export async function ghostRows(
  database: SluiceDatabase,
  folder: BlobFolder,
  jobId: string,
): Promise<{ row: AssetRow; problem: string }[]> {
  const out: { row: AssetRow; problem: string }[] = [];
  for (const row of await assetsForJob(database.db, jobId)) {
    const b = await folder.bytes(row.finalKey);
    if (!b) out.push({ row, problem: 'no blob' });
    else if (b.byteLength !== row.size) out.push({ row, problem: `size ${b.byteLength}` });
    else if (sha256(b) !== row.sha256) out.push({ row, problem: 'sha256 differs' });
  }
  return out;
}

export interface AssetAudit {
  rows: AssetRow[];
  /** Rows whose blob is missing or differs in size or sha256. */
  ghosts: { row: AssetRow; problem: string }[];
  /** Blobs under the job's asset prefix without a row, and staging blobs of dead attempts. */
  orphans: string[];
  /** Every staging key of the job still in the store (live attempts' included). */
  staging: string[];
}

async function readAll(blobs: BlobStore, key: string): Promise<Buffer | undefined> {
  const body = await blobs.get(key);
  return body ? Buffer.from(await new Response(body).arrayBuffer()) : undefined;
}

/** The asset invariants of one job, read from the database and the blob store. */
export async function auditAssets(
  database: SluiceDatabase,
  blobs: BlobStore,
  job: { id: string; tenantId: string },
): Promise<AssetAudit> {
  const rows = await assetsForJob(database.db, job.id);
  const ghosts: AssetAudit['ghosts'] = [];
  for (const row of rows) {
    const b = await readAll(blobs, row.finalKey);
    if (!b) ghosts.push({ row, problem: 'no blob' });
    else if (b.byteLength !== row.size) ghosts.push({ row, problem: `size ${b.byteLength}` });
    else if (sha256(b) !== row.sha256) ghosts.push({ row, problem: 'sha256 differs' });
  }
  const keys = new Set(rows.map((r) => r.finalKey));
  const orphans: string[] = [];
  for await (const k of blobs.list(`t/${job.tenantId}/j/${job.id}/`))
    if (!keys.has(k)) orphans.push(k);
  const live = (await liveAttemptOf(database.db, job.id))?.attemptId ?? null;
  const staging: string[] = [];
  for await (const k of blobs.list(stagingPrefix(job.tenantId, job.id))) {
    staging.push(k);
    if (live === null || !k.startsWith(`${stagingPrefix(job.tenantId, job.id, live)}/`)) {
      orphans.push(k);
    }
  }
  return { rows, ghosts, orphans, staging };
}
