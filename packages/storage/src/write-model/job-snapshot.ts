// Loads the snapshots of a whole read batch with ONE statement of the dialect's (prepared, its
// text independent of the batch size): PostgreSQL an array parameter, SQLite and D1 a JSON one.

import { snapshotWithInput, type PointerSnapshot } from '@sluice/contracts';
import type { SluiceDatabase } from '../database.js';
import { toJson } from '../json.js';
import { toSnapshot, type JobSnapshot } from './snapshot-row.js';

export {
  SNAPSHOT_COLUMNS,
  toSnapshot,
  type JobSnapshot,
  type SnapshotRow,
} from './snapshot-row.js';

/** The snapshots of these jobs, by id (missing ids are simply absent). */
export async function loadSnapshots(
  database: SluiceDatabase,
  ids: readonly string[],
): Promise<Map<string, JobSnapshot>> {
  const out = new Map<string, JobSnapshot>();
  if (ids.length === 0) return out;
  for (const r of await database.dialect.loadSnapshots(ids)) out.set(r.id, toSnapshot(r));
  return out;
}

/**
 * What a pointer may carry of this row (`MessagePointer.snapshot`): a queued job that is due,
 * has no files and no limit wait, as a dispatch after this read would send it. Undefined
 * otherwise (its first delivery reads the row).
 */
export function pointerSnapshotOf(row: JobSnapshot): PointerSnapshot | undefined {
  if (row.state !== 'queued' || row.fileIds.length > 0 || row.waiting || row.runAfter !== null)
    return undefined;
  return snapshotWithInput(
    {
      epoch: row.epoch,
      lastSeq: row.lastSeq,
      attempts: row.attempts,
      maxAttempts: row.maxAttempts,
      createdAt: row.createdAt,
      ...(row.traceContext ? { traceContext: row.traceContext } : {}),
      ...(row.apiKeyId ? { apiKeyId: row.apiKeyId } : {}),
    },
    toJson(row.input),
  );
}
