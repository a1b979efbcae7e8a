// The served-versions registry for runtimes whose queue is in the database: each worker
// heartbeats the (kind, version) pairs it has handlers for. Dispatch and the grace-period sweep
// read it to dead-letter a version nobody serves instead of stranding the job.

import type { VersionKey } from '@sluice/contracts';
import type { Db } from '../database.js';
import { isoIn, isoNow } from '../json.js';

export async function heartbeatServed(
  db: Db,
  workerId: string,
  versions: readonly VersionKey[],
  ttlMs: number,
  now = Date.now(),
): Promise<void> {
  if (versions.length === 0) return;
  const expires = isoIn(ttlMs, now);
  await db
    .insertInto('served_versions')
    .values(
      versions.map((v) => ({
        worker_id: workerId,
        kind: v.kind,
        version: v.version,
        expires_at: expires,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['worker_id', 'kind', 'version']).doUpdateSet({ expires_at: expires }),
    )
    .execute();
}

export async function removeServed(db: Db, workerId: string): Promise<void> {
  await db.deleteFrom('served_versions').where('worker_id', '=', workerId).execute();
}

/** Versions of `kind` that at least one live worker serves (sorted, distinct). */
export async function servedVersions(db: Db, kind: string, now = Date.now()): Promise<string[]> {
  const rows = await db
    .selectFrom('served_versions')
    .select('version')
    .distinct()
    .where('kind', '=', kind)
    .where('expires_at', '>', isoNow(now))
    .orderBy('version')
    .execute();
  return rows.map((r) => r.version);
}
