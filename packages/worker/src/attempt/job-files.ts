// `ctx.files`: a job reads only its own files (the ones it was submitted with, in its tenant),
// streamed from the blob store. A file that vanished mid-run ends the job `stale`, not retried.

import { SluiceError } from '@sluice/contracts';
import { getFile, type BlobStore, type SluiceDatabase } from '@sluice/storage/d1';
import type { HandlerFiles } from './define-handler.js';

export interface JobFilesOptions {
  database: SluiceDatabase;
  blobs: BlobStore | undefined;
  tenantId: string;
  fileIds: readonly string[];
}

export function createJobFiles(opts: JobFilesOptions): HandlerFiles {
  return {
    async open(fileId) {
      if (!opts.fileIds.includes(fileId)) {
        throw new SluiceError('NOT_FOUND', `file "${fileId}" is not one of this job's files`);
      }
      if (!opts.blobs) throw new SluiceError('INVALID_CONFIG', 'the worker has no blob store');
      const row = await getFile(opts.database.db, opts.tenantId, fileId);
      if (!row) throw new SluiceError('JOB_STALE', `file "${fileId}" no longer exists`);
      const body = await opts.blobs.get(row.blobKey);
      if (!body)
        throw new SluiceError('JOB_STALE', `the blob of file "${fileId}" no longer exists`);
      return body;
    },
  };
}
