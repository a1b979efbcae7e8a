// The example's own HTTP routes on the gateway's app: the MP4 of a finished job, for the API key
// of the job's tenant only (another tenant's job answers exactly like a missing one), and the
// page. Here until the gateway has a download route of its own.
import { admitHttp, type Gatekeeper } from '@sluice/gateway';
import { assetsForJob, getJob, type BlobStore, type SluiceDatabase } from '@sluice/storage';
import type { Hono } from 'hono';
import { PAGE_HTML } from './page.js';

export interface VideoRoutesDeps {
  database: SluiceDatabase;
  blobs: BlobStore;
  /** The gateway's admission (key, `jobs:read` scope, rate and in-flight limits). */
  gate: Gatekeeper;
}

export function addVideoRoutes(app: Hono, deps: VideoRoutesDeps): void {
  app.get('/video', (c) => c.html(PAGE_HTML));
  app.get('/video/jobs/:jobId/final.mp4', async (c) => {
    const principal = await admitHttp(deps.gate, c, 'jobs:read', undefined, 'download');
    if (principal instanceof Response) return principal;
    const notFound = () =>
      c.json({ error: { code: 'NOT_FOUND', message: 'video not found' } }, 404);
    const job = await getJob(deps.database.db, principal.tenantId, c.req.param('jobId'));
    // Only a succeeded job's result names a verified file.
    if (!job || job.state !== 'succeeded') return notFound();
    const asset = (await assetsForJob(deps.database.db, job.id)).find(
      (a) =>
        a.tenantId === principal.tenantId && a.unitKey === 'finalize' && a.name === 'final.mp4',
    );
    const body = asset && (await deps.blobs.get(asset.finalKey));
    if (!asset || !body) return notFound();
    return new Response(body, {
      headers: {
        'content-type': 'video/mp4',
        'content-length': String(asset.size),
        'content-disposition': `inline; filename="${job.id}.mp4"`,
        etag: `"${asset.sha256}"`,
      },
    });
  });
}
