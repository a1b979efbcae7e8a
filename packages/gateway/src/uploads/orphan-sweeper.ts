// Crash leftovers of uploads: a process killed mid-upload leaves a temporary file (the store's
// `sweepTemporary`), and one killed between storing the blob and writing its file row leaves a
// blob nothing refers to. Both are removed after a grace period, never while an upload can still
// be in flight:
//   - a temporary file is stale when nothing wrote it for `graceMs` (a live upload writes at
//     least every idle timeout, 10 s, or is cut);
//   - an upload blob is removed only when two sweeps at least `graceMs` apart both found it
//     without a file row (an upload writes its row milliseconds after its blob, and no request
//     lives longer than the server's request timeout, which the grace exceeds).
// Rows are the truth: a blob whose row exists is never touched, whatever its age.

import { missingFiles, type BlobStore, type Db } from '@sluice/storage';

export interface OrphanSweepOptions {
  /** Minimum age of what is removed (default 1 h; keep it above the request timeout). */
  graceMs?: number;
  /** Candidates remembered between sweeps at most (default 100 000). */
  maxTracked?: number;
}

export interface OrphanSweepResult {
  temporaryFiles: number;
  orphanBlobs: number;
}

const UPLOAD_KEY = /^t\/[^/]+\/uploads\/(f_[a-z2-7]+)$/;

export function createOrphanSweeper(
  db: Db,
  blobs: BlobStore,
  options: OrphanSweepOptions = {},
): (now?: number) => Promise<OrphanSweepResult> {
  const graceMs = options.graceMs ?? 60 * 60 * 1000;
  const maxTracked = options.maxTracked ?? 100_000;
  // upload key -> when a sweep first found it without a row
  const unreferencedSince = new Map<string, number>();

  return async function sweepOrphans(now = Date.now()) {
    const temporaryFiles = (await blobs.sweepTemporary?.(graceMs, now)) ?? 0;
    const byId = new Map<string, string>();
    for await (const key of blobs.list('t/')) {
      const id = UPLOAD_KEY.exec(key)?.[1];
      if (id) byId.set(id, key);
    }
    const missing = new Set(await missingFiles(db, [...byId.keys()]));
    let orphanBlobs = 0;
    const stillUnreferenced = new Set<string>();
    for (const id of missing) {
      const key = byId.get(id)!;
      stillUnreferenced.add(key);
      const since = unreferencedSince.get(key);
      if (since === undefined) {
        if (unreferencedSince.size < maxTracked) unreferencedSince.set(key, now);
      } else if (now - since >= graceMs) {
        // Row-less on two sweeps a grace apart: no upload is still on its way to a row.
        if ((await missingFiles(db, [id])).length === 1 && (await blobs.delete(key))) {
          orphanBlobs++;
        }
        unreferencedSince.delete(key);
      }
    }
    for (const key of unreferencedSince.keys()) {
      if (!stillUnreferenced.has(key)) unreferencedSince.delete(key);
    }
    return { temporaryFiles, orphanBlobs };
  };
}
