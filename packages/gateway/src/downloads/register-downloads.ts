// `GET /v1/files/:id` and `GET /v1/jobs/:id/assets/:name[?unit=…]`: the caller's tenant only
// (another tenant's id answers 404 exactly like a missing one), authorised by an API key or by a
// signed token from `files.signedUrl` / `jobs.assetUrl`. Order: authenticate (401), validate the
// parameters with the contracts' schemas (400), look up in the tenant (404), then stream.

import { AssetName, FileId, JobIdInput, UnitKey } from '@sluice/contracts';
import type { BlobStore, SluiceDatabase } from '@sluice/storage';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { admitHttp } from '../auth/admit-http.js';
import type { Gatekeeper } from '../auth/gatekeeper.js';
import type { GatewayLogger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { invalidInputMessage } from '../trpc/errors.js';
import { assetPath, filePath, findAsset, findFile, type Downloadable } from './downloadables.js';
import { errorResponse, serveDownload } from './serve-download.js';
import type { UrlSigner } from './signed-urls.js';

export interface DownloadDeps {
  database: SluiceDatabase;
  blobs: BlobStore;
  gate: Gatekeeper;
  signer: UrlSigner;
  metrics: GatewayMetrics;
  logger: GatewayLogger;
}

const FileParams = z.object({ id: FileId }).strict();
const AssetParams = z
  .object({ id: JobIdInput, name: AssetName, unit: UnitKey.optional() })
  .strict();

function reject(deps: DownloadDeps, status: number, code: string, message: string): Response {
  deps.metrics.reject(code);
  return errorResponse(status, code, message);
}

/**
 * The tenant the request acts for: its API key's (scope `jobs:read`), or the signed token's for
 * exactly `path`. A Response when the key is refused (401, 403, 429).
 */
async function tenantOf(
  deps: DownloadDeps,
  c: Context,
  path: () => string | undefined,
): Promise<string | undefined | Response> {
  const token = c.req.query('token');
  if (token !== undefined) {
    const p = path();
    return p === undefined ? undefined : deps.signer.verify(p, token);
  }
  const principal = await admitHttp(
    deps.gate,
    c,
    'jobs:read',
    (code) => deps.metrics.reject(code),
    'download',
  );
  return principal instanceof Response ? principal : principal.tenantId;
}

async function respond(
  deps: DownloadDeps,
  c: Context,
  item: Downloadable | undefined,
  what: string,
): Promise<Response> {
  if (!item) return reject(deps, 404, 'NOT_FOUND', `${what} not found`);
  try {
    return await serveDownload(deps.blobs, item, c.req.raw);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'NOT_FOUND') {
      // A row without its blob: the caller sees a missing file, the operator an error.
      deps.logger.error('download: row without blob', { key: item.blobKey });
      return reject(deps, 404, 'NOT_FOUND', `${what} not found`);
    }
    throw error;
  }
}

function badRequest(deps: DownloadDeps, error: z.ZodError): Response {
  deps.metrics.reject('BAD_REQUEST');
  const issues = error.issues.slice(0, 20).map((i) => ({
    path: i.path.map(String).join('.'),
    code: i.code,
    message: i.message,
  }));
  return Response.json(
    { error: { code: 'BAD_REQUEST', message: invalidInputMessage(issues), issues } },
    { status: 400 },
  );
}

export function registerDownloads(app: Hono, deps: DownloadDeps): void {
  const db = deps.database.db;
  const unauthorized = () => reject(deps, 401, 'UNAUTHORIZED', 'missing or invalid API key');

  app.get('/v1/files/:id', async (c) => {
    const raw = { id: c.req.param('id') };
    const tenantId = await tenantOf(deps, c, () => filePath(raw.id));
    if (tenantId instanceof Response) return tenantId;
    if (tenantId === undefined) return unauthorized();
    const params = FileParams.safeParse(raw);
    if (!params.success) return badRequest(deps, params.error);
    return respond(deps, c, await findFile(db, tenantId, params.data.id), 'file');
  });

  app.get('/v1/jobs/:id/assets/:name', async (c) => {
    const unit = c.req.query('unit');
    const raw = {
      id: c.req.param('id'),
      name: c.req.param('name'),
      ...(unit !== undefined ? { unit } : {}),
    };
    const ref = { jobId: raw.id, name: raw.name, unit: unit ?? null };
    const tenantId = await tenantOf(deps, c, () => assetPath(ref));
    if (tenantId instanceof Response) return tenantId;
    if (tenantId === undefined) return unauthorized();
    const params = AssetParams.safeParse(raw);
    if (!params.success) return badRequest(deps, params.error);
    return respond(deps, c, await findAsset(db, tenantId, ref), 'asset');
  });
}
