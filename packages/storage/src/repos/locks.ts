// Named leases in the database: one holder at a time across every replica (the reconciler).

import type { Db } from '../database.js';
import { isoIn, isoNow } from '../json.js';

/** Takes or renews the lock; true when `owner` holds it for the next `ttlMs`. */
export async function acquireLock(
  db: Db,
  name: string,
  owner: string,
  ttlMs: number,
  now = Date.now(),
): Promise<boolean> {
  const nowIso = isoNow(now);
  const expires = isoIn(ttlMs, now);
  const row = await db
    .insertInto('locks')
    .values({ name, owner, expires_at: expires })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet({ owner, expires_at: expires })
        .where((eb) =>
          eb.or([eb('locks.owner', '=', owner), eb('locks.expires_at', '<=', nowIso)]),
        ),
    )
    .returning('owner')
    .executeTakeFirst();
  return row?.owner === owner;
}

export async function releaseLock(db: Db, name: string, owner: string): Promise<void> {
  await db.deleteFrom('locks').where('name', '=', name).where('owner', '=', owner).execute();
}
