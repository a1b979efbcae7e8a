// The asset row as the rest of the code sees it, the ownership record of the asset protocol, and
// the read both the transactional and the single-statement forms start from.

import type { Selectable } from 'kysely';
import type { Db } from '../database.js';
import type { AssetsTable } from '../schema.js';

export interface AssetRow {
  finalKey: string;
  jobId: string;
  tenantId: string;
  unitKey: string;
  name: string;
  size: number;
  sha256: string;
  contentType: string;
  attemptId: string;
  createdAt: string;
}

export function toAssetRow(r: Selectable<AssetsTable>): AssetRow {
  return {
    finalKey: r.final_key,
    jobId: r.job_id,
    tenantId: r.tenant_id,
    unitKey: r.unit_key,
    name: r.name,
    size: Number(r.size),
    sha256: r.sha256,
    contentType: r.content_type,
    attemptId: r.attempt_id,
    createdAt: r.created_at,
  };
}

export interface Ownership {
  finalKey: string;
  jobId: string;
  unitKey: string;
  name: string;
  attemptId: string;
  epoch: number;
  stagingKey: string;
}

export async function getAsset(db: Db, finalKey: string): Promise<AssetRow | undefined> {
  const r = await db
    .selectFrom('assets')
    .selectAll()
    .where('final_key', '=', finalKey)
    .executeTakeFirst();
  return r ? toAssetRow(r) : undefined;
}
