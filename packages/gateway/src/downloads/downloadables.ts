// What can be downloaded, found in the caller's tenant only: an uploaded file, or a job's asset
// by name and unit. Anything of another tenant is `undefined`, exactly like a missing one. Step
// checkpoints (large step results) are assets too, but internal: never listed nor served.

import { FILES_PATH, JOBS_PATH, type AssetView } from '@sluice/contracts';
import { assetsForJob, getFile, getJob, type AssetRow, type Db } from '@sluice/storage/portable';

/** One downloadable thing: where its bytes are and how to describe them. */
export interface Downloadable {
  blobKey: string;
  size: number;
  sha256: string;
  contentType: string;
  /** Offered to the browser in Content-Disposition. */
  filename: string;
}

const FINALIZE = 'finalize';
const UNIT = 'unit:';

/** The public unit of an asset row: null for finalize, the unit key for a unit, hidden otherwise. */
function unitOf(row: AssetRow): string | null | undefined {
  if (row.unitKey === FINALIZE) return null;
  if (row.unitKey.startsWith(UNIT)) return row.unitKey.slice(UNIT.length);
  return undefined;
}

export function toAssetView(row: AssetRow): AssetView | undefined {
  const unit = unitOf(row);
  if (unit === undefined) return undefined;
  return {
    name: row.name,
    unit,
    size: row.size,
    sha256: row.sha256,
    contentType: row.contentType,
    createdAt: row.createdAt,
  };
}

export async function listJobAssets(
  db: Db,
  tenantId: string,
  jobId: string,
): Promise<AssetView[] | undefined> {
  if (!(await getJob(db, tenantId, jobId))) return undefined;
  const rows = await assetsForJob(db, jobId);
  return rows
    .filter((r) => r.tenantId === tenantId)
    .map(toAssetView)
    .filter((v): v is AssetView => v !== undefined)
    .sort((a, b) => order(a).localeCompare(order(b)));
}

/** The job's own (finalize) assets first, then each unit's, by name. */
function order(a: AssetView): string {
  return a.unit === null ? `0\u0000${a.name}` : `1\u0000${a.unit}\u0000${a.name}`;
}

export async function findFile(
  db: Db,
  tenantId: string,
  fileId: string,
): Promise<Downloadable | undefined> {
  const f = await getFile(db, tenantId, fileId);
  if (!f) return undefined;
  return {
    blobKey: f.blobKey,
    size: f.size,
    sha256: f.sha256,
    contentType: f.contentType,
    filename: f.filename ?? f.id,
  };
}

export async function findAsset(
  db: Db,
  tenantId: string,
  ref: { jobId: string; name: string; unit: string | null },
): Promise<Downloadable | undefined> {
  if (!(await getJob(db, tenantId, ref.jobId))) return undefined;
  const scope = ref.unit === null ? FINALIZE : `${UNIT}${ref.unit}`;
  const row = (await assetsForJob(db, ref.jobId)).find(
    (r) => r.tenantId === tenantId && r.unitKey === scope && r.name === ref.name,
  );
  if (!row) return undefined;
  return {
    blobKey: row.finalKey,
    size: row.size,
    sha256: row.sha256,
    contentType: row.contentType,
    filename: row.name,
  };
}

/** The gateway path of a file download (what a signed token is bound to). */
export function filePath(fileId: string): string {
  return `${FILES_PATH}/${fileId}`;
}

export function assetPath(ref: { jobId: string; name: string; unit: string | null }): string {
  const base = `${JOBS_PATH}/${ref.jobId}/assets/${ref.name}`;
  return ref.unit === null ? base : `${base}?unit=${encodeURIComponent(ref.unit)}`;
}
