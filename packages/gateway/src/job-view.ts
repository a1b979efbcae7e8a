// What a caller may see of a job or file: explicit picks, so internal fields (tenant, epoch,
// attempt id, input hash, idempotency key, blob key) never leave the gateway, whatever the
// output schema would let through.

import type { FileView, JobResult, JobView } from '@sluice/contracts';
import type { FileRow, JobRow } from '@sluice/storage/portable';

export function toJobView(job: JobRow): JobView {
  return {
    id: job.id,
    kind: job.kind,
    version: job.version,
    state: job.state,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    reason: job.reason,
    error: job.error,
    fileIds: job.fileIds,
    runAt: job.state === 'scheduled' || job.state === 'queued' ? job.runAfter : null,
    priority: job.priority,
    // Only a queued job waits on a limit, and a scheduled one on its singleton key; any later
    // write clears it, this is belt and braces.
    waiting: job.state === 'queued' || job.state === 'scheduled' ? (job.waiting ?? null) : null,
    hold: job.hold,
    parentId: job.parentId,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    finishedAt: job.finishedAt,
    lastSeq: job.lastSeq,
  };
}

export function toJobResult(job: JobRow): JobResult {
  return {
    id: job.id,
    state: job.state,
    output: job.state === 'succeeded' ? job.output : null,
    error: job.error,
    reason: job.reason,
  };
}

export function toFileView(file: FileRow): FileView {
  return {
    id: file.id,
    size: file.size,
    sha256: file.sha256,
    contentType: file.contentType,
    filename: file.filename,
    createdAt: file.createdAt,
    expiresAt: file.expiresAt,
  };
}
