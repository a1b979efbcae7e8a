// `files.*`: uploaded files of the caller's tenant. Uploading itself is a plain HTTP route
// (`POST /v1/uploads`, uploads/uploads.ts): tRPC would buffer the body.

import { FileIdInput, FileView, SluiceError } from '@sluice/contracts';
import { deleteFile, getFile, listFiles } from '@sluice/storage/portable';
import { z } from 'zod';
import { toFileView } from '../job-view.js';
import type { Procedures } from '../trpc/procedures.js';
import type { RouterDeps } from './deps.js';
import { createDownloadProcedures } from './downloads.js';

export const FileListInput = z
  .object({ limit: z.number().int().min(1).max(100).default(100) })
  .strict()
  .default({ limit: 100 });
export const FileListResult = z.object({ items: z.array(FileView) });
export const FileDeleteResult = z.object({ id: z.string() });

const notFound = () => new SluiceError('NOT_FOUND', 'file not found');

export function createFilesRouter(p: Procedures, deps: RouterDeps) {
  const db = deps.database.db;
  return p.router({
    get: p
      .scoped('jobs:read')
      .input(FileIdInput)
      .output(FileView)
      .query(async ({ ctx, input }) => {
        const file = await getFile(db, ctx.tenantId, input.id);
        if (!file) throw notFound();
        return toFileView(file);
      }),

    list: p
      .scoped('jobs:read')
      .input(FileListInput)
      .output(FileListResult)
      .query(async ({ ctx, input }) => ({
        items: (await listFiles(db, ctx.tenantId, input.limit)).map(toFileView),
      })),

    /** Row first, then blob: a job that still needs the file ends `stale` in the worker. */
    delete: p
      .scoped('jobs:submit')
      .input(FileIdInput)
      .output(FileDeleteResult)
      .mutation(async ({ ctx, input }) => {
        const file = await deleteFile(db, ctx.tenantId, input.id);
        if (!file) throw notFound();
        try {
          await deps.blobs.delete(file.blobKey);
        } catch (error) {
          // The row is gone, so nothing refers to the blob: log it for the sweeper's operator.
          deps.logger.error('blob delete failed after file delete', { fileId: file.id, error });
        }
        return { id: file.id };
      }),

    // `signedUrl`
    ...createDownloadProcedures(p, deps).files,
  });
}
