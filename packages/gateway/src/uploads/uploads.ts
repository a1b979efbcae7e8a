// `POST /v1/uploads`: the request body is streamed to the blob store, never buffered whole; the
// store counts bytes and hashes them on the way and cuts the body at the first byte over the
// limit (leaving nothing behind). A declared Content-Length over the limit is refused before a
// byte is read. The file row is written only once the blob is stored. Uploads not attached to a
// job expire (`expires_at`); a sweeper deletes them, row first, then blob.
//
// This folder: the route (uploads.ts), what the bytes must pass first (upload-guard.ts,
// upload-types.ts), and what removes leftovers: expired uploads here, crash leftovers in
// orphan-sweeper.ts, and the delete that spares a just-attached upload (storage-extras.ts).

import { UPLOAD_PATH, isSluiceError, SluiceError } from '@sluice/contracts';
import {
  expiredFiles,
  insertFile,
  isoIn,
  isoNow,
  newFileId,
  tenantStoredBytes,
  uploadKey,
  type BlobStore,
  type SluiceDatabase,
} from '@sluice/storage';
import type { Hono } from 'hono';
import { admitHttp } from '../auth/admit-http.js';
import type { Gatekeeper } from '../auth/gatekeeper.js';
import { toFileView } from '../job-view.js';
import type { GatewayLogger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { deleteExpiredFile } from './storage-extras.js';
import { decideType, guardBody, type GuardedBody } from './upload-guard.js';

export interface UploadOptions {
  /** Largest accepted body in bytes (default 100 MiB). */
  maxBytes?: number;
  /** Unattached uploads expire after this long (default 24 h). */
  ttlMs?: number;
  /** How often expired uploads are swept (default 60 s; 0 turns the sweeper off). */
  sweepIntervalMs?: number;
  /**
   * Content types stored (`image/*` matches a family), judged after sniffing the first bytes.
   * Default: DEFAULT_UPLOAD_TYPES (documents, spreadsheets, data, archives, images, audio, video,
   * octet-stream). Types a browser would run or render as a page are refused whatever this says.
   */
  allowedTypes?: readonly string[];
  /** A body that sends nothing for this long is cut with 408 (default 10 000 ms). */
  idleMs?: number;
  /** Crash leftovers (temp files, row-less upload blobs) older than this are removed (1 h). */
  orphanGraceMs?: number;
  /** How often the crash-leftover sweep runs (default 15 min; 0 turns it off). */
  orphanSweepIntervalMs?: number;
}

export const DEFAULT_UPLOAD_MAX_BYTES = 100 * 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The display name of an upload: metadata only, never part of a key. */
export function sanitizeFilename(raw: string | undefined): string | null {
  if (!raw) return null;
  let name = raw;
  try {
    name = decodeURIComponent(raw);
  } catch {
    // not percent-encoded: keep it as sent
  }
  const cleaned = name
    // control characters and bidi overrides (a name that displays as something else)
    // eslint-disable-next-line no-control-regex -- removing control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .split(/[/\\]/)
    .pop()!
    // markup characters: a name is shown in pages and headers, never interpreted
    .replace(/[<>"'`]/g, '')
    .trim()
    .slice(0, 255);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? null : cleaned;
}

const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/;

export function parseContentType(raw: string | undefined): string {
  const type = (raw ?? '').split(';')[0]!.trim().toLowerCase();
  return type.length <= 100 && CONTENT_TYPE.test(type) ? type : 'application/octet-stream';
}

interface UploadDeps {
  database: SluiceDatabase;
  blobs: BlobStore;
  gate: Gatekeeper;
  metrics: GatewayMetrics;
  logger: GatewayLogger;
  options: UploadOptions;
  /** Bytes each tenant may keep (uploads + assets): `limits.tenantStorageBytes`. */
  quotaBytes: number;
}

export function registerUploads(app: Hono, deps: UploadDeps): void {
  const maxBytes = deps.options.maxBytes ?? DEFAULT_UPLOAD_MAX_BYTES;
  const ttlMs = deps.options.ttlMs ?? DAY_MS;
  const idleMs = deps.options.idleMs ?? 10_000;
  const tooLarge = {
    error: { code: 'PAYLOAD_TOO_LARGE', message: `upload exceeds ${maxBytes} bytes` },
  };

  app.post(UPLOAD_PATH, async (c) => {
    const principal = await admitHttp(
      deps.gate,
      c,
      'jobs:submit',
      (code) => deps.metrics.reject(code),
      'upload',
    );
    if (principal instanceof Response) return principal;
    const declared = c.req.header('content-length');
    if (declared !== undefined && Number(declared) > maxBytes) {
      deps.metrics.reject('PAYLOAD_TOO_LARGE');
      c.header('Connection', 'close');
      return c.json(tooLarge, 413);
    }
    // The tenant's quota: checked before a byte is read, bounds how much this body may bring,
    // and is checked again before the row is written (uploads running side by side).
    const room =
      deps.quotaBytes - (await tenantStoredBytes(deps.database.db, principal.tenantId)).total;
    const overQuota = () => {
      deps.metrics.reject('QUOTA_EXCEEDED');
      c.header('Connection', 'close');
      const message = `tenant storage quota of ${deps.quotaBytes} bytes reached`;
      return c.json({ error: { code: 'QUOTA_EXCEEDED', message } }, 413);
    };
    if (room <= 0 || (declared !== undefined && Number(declared) > room)) return overQuota();
    const refuse = (error: SluiceError, status: 400 | 408 | 415) => {
      deps.metrics.reject(error.code);
      // The rest of the body is not read: the connection cannot be reused.
      c.header('Connection', 'close');
      return c.json({ error: { code: error.code, message: error.message } }, status);
    };
    const id = newFileId();
    const key = uploadKey(principal.tenantId, id);
    let guarded: GuardedBody;
    try {
      guarded = await guardBody(c.req.raw.body ?? new Blob([]).stream(), idleMs);
    } catch (error) {
      if (isSluiceError(error) && error.code === 'TIMEOUT') return refuse(error, 408);
      throw error;
    }
    const contentType = decideType(
      parseContentType(c.req.header('content-type')),
      guarded.prefix,
      deps.options.allowedTypes,
    );
    if (contentType instanceof SluiceError) {
      return refuse(contentType, contentType.details?.status === 415 ? 415 : 400);
    }
    let stored: { size: number; sha256: string };
    try {
      // The store keeps the type too: a presigned download then answers with it.
      stored = await deps.blobs.put(key, guarded.body, {
        maxBytes: Math.min(maxBytes, room),
        signal: c.req.raw.signal,
        contentType,
      });
    } catch (error) {
      if (guarded.timedOut()) {
        return refuse(new SluiceError('TIMEOUT', 'upload body idle; cut'), 408);
      }
      if (isSluiceError(error) && error.code === 'PAYLOAD_TOO_LARGE') {
        if (room < maxBytes) return overQuota();
        deps.metrics.reject('PAYLOAD_TOO_LARGE');
        c.header('Connection', 'close');
        return c.json(tooLarge, 413);
      }
      // The client went away mid-body: the store removed the partial; nobody reads an answer.
      if (c.req.raw.signal.aborted) {
        deps.metrics.reject('CLIENT_CLOSED_REQUEST');
        return c.json({ error: { code: 'BAD_REQUEST', message: 'upload aborted' } }, 400);
      }
      throw error;
    }
    const after = await tenantStoredBytes(deps.database.db, principal.tenantId);
    if (after.total + stored.size > deps.quotaBytes) {
      await deps.blobs.delete(key).catch(() => false);
      return overQuota();
    }
    const now = Date.now();
    let row;
    try {
      row = await insertFile(deps.database.db, {
        id,
        tenantId: principal.tenantId,
        blobKey: key,
        size: stored.size,
        sha256: stored.sha256,
        contentType,
        filename: sanitizeFilename(c.req.header('x-filename')),
        createdAt: isoNow(now),
        expiresAt: isoIn(ttlMs, now),
      });
    } catch (error) {
      await deps.blobs.delete(key).catch(() => false);
      throw error;
    }
    deps.metrics.uploads++;
    deps.metrics.uploadBytes += stored.size;
    return c.json(toFileView(row), 201);
  });
}

/** Deletes expired, unattached uploads (row first, then blob). Returns how many went. */
export async function sweepExpiredUploads(
  database: SluiceDatabase,
  blobs: BlobStore,
  logger: GatewayLogger,
  now = Date.now(),
): Promise<number> {
  let removed = 0;
  const nowIso = isoNow(now);
  for (;;) {
    const batch = await expiredFiles(database.db, nowIso, 100);
    for (const file of batch) {
      const blobKey = await deleteExpiredFile(database.db, file, nowIso);
      if (blobKey === undefined) continue;
      removed++;
      await blobs.delete(blobKey).catch((error: unknown) => {
        logger.error('expired upload: blob delete failed', { fileId: file.id, error });
      });
    }
    if (batch.length < 100) return removed;
  }
}

export function startUploadSweeper(
  sweep: () => Promise<unknown>,
  intervalMs: number,
  logger: GatewayLogger,
): () => void {
  if (intervalMs <= 0) return () => {};
  const timer = setInterval(() => {
    sweep().catch((error: unknown) => logger.error('upload sweep failed', { error }));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
