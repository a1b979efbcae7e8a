// The tRPC half of downloads: a job's asset list and short-lived links. A link is a presigned
// store URL when the blob store can presign (`capabilities.presignGet`: the bytes then bypass
// the gateway), otherwise a gateway path carrying an HMAC token (downloads/signed-urls.ts).

import {
  AssetUrlInput,
  FileUrlInput,
  GetInput,
  JobAssetsResult,
  SignedUrl,
  SluiceError,
} from '@sluice/contracts';
import {
  assetPath,
  filePath,
  findAsset,
  findFile,
  listJobAssets,
  type Downloadable,
} from '../downloads/downloadables.js';
import { contentDisposition } from '../downloads/serve-download.js';
import type { Procedures } from '../trpc/procedures.js';
import type { RouterDeps } from './deps.js';

async function linkTo(
  deps: RouterDeps,
  item: Downloadable,
  path: string,
  tenantId: string,
  expiresInSeconds: number,
): Promise<SignedUrl> {
  const { blobs } = deps;
  if (blobs.capabilities.presignGet && blobs.presignGet) {
    const expiresAt = new Date(Date.now() + expiresInSeconds * 1000);
    const url = await blobs.presignGet(item.blobKey, {
      expiresInSeconds,
      contentDisposition: contentDisposition(item.filename),
      contentType: item.contentType,
    });
    return { url, expiresAt: expiresAt.toISOString() };
  }
  const { token, expiresAt } = deps.signer.sign(path, tenantId, expiresInSeconds);
  const url = `${path}${path.includes('?') ? '&' : '?'}token=${token}`;
  return { url, expiresAt: expiresAt.toISOString() };
}

export function createDownloadProcedures(p: Procedures, deps: RouterDeps) {
  const db = deps.database.db;
  return {
    files: {
      signedUrl: p
        .scoped('jobs:read')
        .input(FileUrlInput)
        .output(SignedUrl)
        .mutation(async ({ ctx, input }) => {
          const file = await findFile(db, ctx.tenantId, input.id);
          if (!file) throw new SluiceError('NOT_FOUND', 'file not found');
          return linkTo(deps, file, filePath(input.id), ctx.tenantId, input.expiresInSeconds);
        }),
    },
    jobs: {
      assets: p
        .scoped('jobs:read')
        .input(GetInput)
        .output(JobAssetsResult)
        .query(async ({ ctx, input }) => {
          const items = await listJobAssets(db, ctx.tenantId, input.id);
          if (!items) throw new SluiceError('NOT_FOUND', 'job not found');
          return { items };
        }),
      assetUrl: p
        .scoped('jobs:read')
        .input(AssetUrlInput)
        .output(SignedUrl)
        .mutation(async ({ ctx, input }) => {
          const ref = { jobId: input.id, name: input.name, unit: input.unit ?? null };
          const asset = await findAsset(db, ctx.tenantId, ref);
          if (!asset) throw new SluiceError('NOT_FOUND', 'asset not found');
          return linkTo(deps, asset, assetPath(ref), ctx.tenantId, input.expiresInSeconds);
        }),
    },
  };
}
