// Uploaded files. Reads are tenant-scoped: another tenant's file answers like a missing one.

import { randomToken } from '@sluice/contracts';
import type { Selectable } from 'kysely';
import type { Db } from '../database.js';
import { rowsPerStatement } from '../dialect/storage-dialect.js';
import type { FilesTable } from '../schema.js';

export interface FileRow {
  id: string;
  tenantId: string;
  blobKey: string;
  size: number;
  sha256: string;
  contentType: string;
  filename: string | null;
  createdAt: string;
  expiresAt: string | null;
}

export function newFileId(): string {
  return `f_${randomToken()}`;
}

function toFileRow(r: Selectable<FilesTable>): FileRow {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    blobKey: r.blob_key,
    size: Number(r.size),
    sha256: r.sha256,
    contentType: r.content_type,
    filename: r.filename,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

export async function insertFile(db: Db, f: FileRow): Promise<FileRow> {
  await db
    .insertInto('files')
    .values({
      id: f.id,
      tenant_id: f.tenantId,
      blob_key: f.blobKey,
      size: f.size,
      sha256: f.sha256,
      content_type: f.contentType,
      filename: f.filename,
      created_at: f.createdAt,
      expires_at: f.expiresAt,
    })
    .execute();
  return f;
}

export async function getFile(db: Db, tenantId: string, id: string): Promise<FileRow | undefined> {
  const r = await db
    .selectFrom('files')
    .selectAll()
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return r ? toFileRow(r) : undefined;
}

/** The files among `ids` that exist for this tenant. */
export async function getFiles(
  db: Db,
  tenantId: string,
  ids: readonly string[],
): Promise<FileRow[]> {
  if (ids.length === 0) return [];
  const per = rowsPerStatement(db, ids.length, 1, 1);
  const out: FileRow[] = [];
  for (let i = 0; i < ids.length; i += per) {
    const rows = await db
      .selectFrom('files')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids.slice(i, i + per))
      .execute();
    out.push(...rows.map(toFileRow));
  }
  return out;
}

export async function listFiles(db: Db, tenantId: string, limit = 100): Promise<FileRow[]> {
  const rows = await db
    .selectFrom('files')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toFileRow);
}

/** Attaching a file to a job stops it from expiring. */
export async function attachFiles(tx: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const per = rowsPerStatement(tx, ids.length, 1);
  for (let i = 0; i < ids.length; i += per)
    await tx
      .updateTable('files')
      .set({ expires_at: null })
      .where('id', 'in', ids.slice(i, i + per))
      .execute();
}

/** Deletes the row; the caller deletes the blob after. Returns the deleted row. */
export async function deleteFile(
  db: Db,
  tenantId: string,
  id: string,
): Promise<FileRow | undefined> {
  const r = await db
    .deleteFrom('files')
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .returningAll()
    .executeTakeFirst();
  return r ? toFileRow(r) : undefined;
}

/** Unattached uploads whose time is up. */
export async function expiredFiles(db: Db, nowIso: string, limit = 100): Promise<FileRow[]> {
  const rows = await db
    .selectFrom('files')
    .selectAll()
    .where('expires_at', 'is not', null)
    .where('expires_at', '<=', nowIso)
    .limit(limit)
    .execute();
  return rows.map(toFileRow);
}

/** Worker check before running: which of a job's files are gone. */
export async function missingFiles(db: Db, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const present = new Set<string>();
  const per = rowsPerStatement(db, ids.length, 1);
  for (let i = 0; i < ids.length; i += per) {
    const rows = await db
      .selectFrom('files')
      .select('id')
      .where('id', 'in', ids.slice(i, i + per))
      .execute();
    for (const r of rows) present.add(r.id);
  }
  return ids.filter((id) => !present.has(id));
}
