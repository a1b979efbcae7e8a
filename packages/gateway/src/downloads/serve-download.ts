// One download response: the stored bytes streamed from the blob store (never buffered), whole
// or one byte range, with headers a browser and a resuming client can rely on. The ETag is the
// content's sha256, so it is the same whichever store or gateway answers.

import { isSluiceError } from '@sluice/contracts';
import type { BlobStore } from '@sluice/storage/portable';
import { decideRange } from './byte-range.js';
import type { Downloadable } from './downloadables.js';

export function errorResponse(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ error: { code, message } }, { status, headers });
}

/** `attachment` with an ASCII fallback and the exact UTF-8 name (RFC 6266). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export async function serveDownload(
  blobs: BlobStore,
  item: Downloadable,
  request: Request,
): Promise<Response> {
  const etag = `"${item.sha256}"`;
  const headers: Record<string, string> = {
    etag,
    'accept-ranges': 'bytes',
    'content-type': item.contentType,
    'content-disposition': contentDisposition(item.filename),
    'x-content-type-options': 'nosniff',
    'cache-control': 'private, no-cache',
  };
  const ifNoneMatch = request.headers.get('if-none-match');
  if (
    ifNoneMatch !== null &&
    ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === '*')
  )
    return new Response(null, { status: 304, headers });
  // If-Range: the client's copy is another version; send it all.
  const ifRange = request.headers.get('if-range');
  const rangeHeader =
    ifRange !== null && ifRange !== etag ? undefined : (request.headers.get('range') ?? undefined);
  const decision = decideRange(rangeHeader, item.size);
  if (decision.kind === 'unsatisfiable') {
    return errorResponse(416, 'RANGE_NOT_SATISFIABLE', `range outside the ${item.size} bytes`, {
      'content-range': `bytes */${item.size}`,
    });
  }
  const range =
    decision.kind === 'partial' ? { offset: decision.offset, length: decision.length } : undefined;
  if (request.method === 'HEAD') {
    return new Response(null, {
      status: range ? 206 : 200,
      headers: {
        ...headers,
        'content-length': String(range?.length ?? item.size),
        ...(range
          ? {
              'content-range': `bytes ${range.offset}-${range.offset + range.length - 1}/${item.size}`,
            }
          : {}),
      },
    });
  }
  let object;
  try {
    object = await blobs.open(item.blobKey, { range });
  } catch (error) {
    if (isSluiceError(error) && error.code === 'RANGE_NOT_SATISFIABLE')
      return errorResponse(416, 'RANGE_NOT_SATISFIABLE', 'range outside the stored bytes', {
        'content-range': `bytes */${item.size}`,
      });
    throw error;
  }
  const { offset, length } = object.range;
  if (length === 0) await object.body.cancel();
  return new Response(length === 0 ? null : object.body, {
    status: range ? 206 : 200,
    headers: {
      ...headers,
      'content-length': String(length),
      ...(range
        ? { 'content-range': `bytes ${offset}-${offset + length - 1}/${object.size}` }
        : {}),
    },
  });
}
