// Deletes bytes at final asset keys that no asset row will ever name: published by an attempt
// that then lost its row (a crash between publish and row; on D1 a takeover between the check
// and the fenced batch), in a job that has ended without any later attempt adopting them. The
// candidates come from the database (ownership rows of FINAL jobs without an asset row, storage
// `orphanedAssetClaims`); each claim is released by one conditional statement that re-checks it,
// and only a released claim's blob is deleted. A final key that has a row is never touched.

import {
  orphanedAssetClaims,
  releaseAssetClaim,
  type BlobStore,
  type SluiceDatabase,
} from '@sluice/storage/d1';
import type { WorkerLogger } from '../logger.js';

export interface OrphanAssetSweepOptions {
  database: SluiceDatabase;
  blobs: BlobStore;
  logger?: WorkerLogger | undefined;
  /** Claims looked at per sweep (default 500); the next sweep continues. */
  limit?: number | undefined;
}

/** Returns the final keys whose orphaned bytes it deleted. */
export async function sweepOrphanAssets(opts: OrphanAssetSweepOptions): Promise<string[]> {
  const db = opts.database.db;
  const deleted: string[] = [];
  for (const claim of await orphanedAssetClaims(db, opts.limit ?? 500)) {
    if (!(await releaseAssetClaim(db, claim))) continue; // changed meanwhile: not ours to judge
    if (await opts.blobs.delete(claim.finalKey)) deleted.push(claim.finalKey);
  }
  if (deleted.length > 0)
    opts.logger?.info('deleted asset bytes no row will name', { count: deleted.length });
  return deleted;
}
