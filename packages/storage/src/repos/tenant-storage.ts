// What a tenant keeps in the blob store, for its storage quota: uploaded files plus the assets
// its jobs published. One statement (two indexed sums) on every dialect, D1 included.

import { sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Db } from '../database.js';

export interface TenantStoredBytes {
  files: number;
  assets: number;
  total: number;
}

export async function tenantStoredBytes(db: Db, tenantId: string): Promise<TenantStoredBytes> {
  const { rows } = await sql<{ files: number | string | null; assets: number | string | null }>`
    select
      (select coalesce(sum(size), 0) from files where tenant_id = ${tenantId}) as files,
      (select coalesce(sum(size), 0) from assets where tenant_id = ${tenantId}) as assets
  `.execute(db);
  const files = Number(rows[0]?.files ?? 0);
  const assets = Number(rows[0]?.assets ?? 0);
  return { files, assets, total: files + assets };
}

/** Migration 0014: the assets' tenant sum reads an index, not the whole table. */
export function assetsTenantIndex(): Migration {
  return {
    async up(db) {
      await db.schema
        .createIndex('assets_tenant')
        .on('assets')
        .columns(['tenant_id', 'size'])
        .execute();
    },
  };
}
