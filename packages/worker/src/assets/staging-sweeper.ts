// The staging sweeper: deletes staging blobs of DEAD attempts (their job is gone, no longer
// running, or running under another attempt), never a key a live attempt's ownership row names,
// and never anything published (published blobs live under `t/…`, the sweeper lists only
// `staging/`). Several workers may sweep at once: deleting a missing key is a no-op, and an
// attempt that is dead never becomes live again (every start draws a new attempt id).

import {
  liveAttemptOf,
  ownedStagingKeys,
  type BlobStore,
  type SluiceDatabase,
} from '@sluice/storage/d1';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';
import { DEFAULT_HOOKS, type WorkerHooks } from '../hooks.js';
import { parseStagingKey, type StagingKeyParts } from './decide-asset.js';

export interface StagingSweepOptions {
  database: SluiceDatabase;
  blobs: BlobStore;
  logger?: WorkerLogger | undefined;
  counters?: Pick<WorkerCounters, 'stagingSwept'> | undefined;
  /**
   * Most keys deleted per sweep (default 1,000); the next sweep continues. Every staging key is
   * looked at (staging holds only in-flight work), so live keys never starve dead ones.
   */
  limit?: number | undefined;
  /** Test seams (the sweep decision); the real one by default. */
  hooks?: WorkerHooks | undefined;
}

export const STAGING_ROOT = 'staging/';

/** Returns the keys it deleted. */
export async function sweepStaging(opts: StagingSweepOptions): Promise<string[]> {
  const { blobs } = opts;
  const db = opts.database.db;
  const limit = opts.limit ?? 1000;
  const byJob = new Map<string, { key: string; parts: StagingKeyParts }[]>();
  for await (const key of blobs.list(STAGING_ROOT)) {
    const parts = parseStagingKey(key);
    if (!parts) continue;
    const list = byJob.get(parts.jobId);
    if (list) list.push({ key, parts });
    else byJob.set(parts.jobId, [{ key, parts }]);
  }
  const swept: string[] = [];
  for (const [jobId, keys] of byJob) {
    if (swept.length >= limit) break;
    // Read after listing: the job's state is at least as new as every key listed for it.
    const job = await liveAttemptOf(db, jobId);
    const owned = await ownedStagingKeys(db, jobId);
    for (const { key, parts } of keys) {
      const verdict = (opts.hooks ?? DEFAULT_HOOKS).decideStagingSweep({
        stagingKey: key,
        attemptId: parts.attemptId,
        job,
        owned,
      });
      if (verdict.action === 'keep') continue;
      if (swept.length >= limit) break;
      if (await blobs.delete(key)) {
        swept.push(key);
        if (opts.counters) opts.counters.stagingSwept++;
      }
    }
  }
  if (swept.length > 0)
    opts.logger?.info('swept staging blobs of dead attempts', { count: swept.length });
  return swept;
}
