// Small queries the gateway needs that @sluice/storage does not have yet (candidates to move
// there).

import type { Db, FileRow } from '@sluice/storage/portable';

/**
 * Deletes an upload only if it is still expired: an accept that attached it a moment ago (and
 * so cleared `expires_at`) keeps it. Returns the blob key of the deleted row.
 */
export async function deleteExpiredFile(
  db: Db,
  file: Pick<FileRow, 'id'>,
  nowIso: string,
): Promise<string | undefined> {
  const row = await db
    .deleteFrom('files')
    .where('id', '=', file.id)
    .where('expires_at', 'is not', null)
    .where('expires_at', '<=', nowIso)
    .returning('blob_key')
    .executeTakeFirst();
  return row?.blob_key;
}
