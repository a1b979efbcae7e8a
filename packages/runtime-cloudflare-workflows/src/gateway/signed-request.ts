// What both runtime routes (the state callback and the run's store) check before they read a
// request, in this order, each refusing with a typed error and writing nothing: size (from the
// header, before reading the body), timestamp window and HMAC signature (before parsing
// anything), then JSON. One copy, so the two routes cannot drift apart.

import { SluiceError, type ErrorCode } from '@sluice/contracts';
import { STATE_CALLBACK_HEADERS, verifyStateReport } from '../wire/index.js';
import type { Context } from 'hono';

export interface SignedRouteOptions {
  /** The secret shared with the Workers (at least 32 characters). */
  secret: string;
  windowMs?: number | undefined;
  /** Largest request accepted (default 1 MiB). */
  maxBytes?: number | undefined;
  /** Tests: the gateway's clock. */
  now?: (() => number) | undefined;
}

const STATUS: Partial<Record<ErrorCode, 400 | 401 | 404 | 409 | 413>> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  LEASE_LOST: 409,
  PAYLOAD_TOO_LARGE: 413,
};

export type Refuse = (c: Context, code: ErrorCode, message: string) => Response;

export function signedRoute(
  opts: SignedRouteOptions,
  onReject: ((code: ErrorCode) => void) | undefined,
) {
  if (opts.secret.length < 32) {
    throw new SluiceError(
      'INVALID_CONFIG',
      'the state callback secret needs at least 32 characters',
    );
  }
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  const now = opts.now ?? Date.now;
  const refuse: Refuse = (c, code, message) => {
    onReject?.(code);
    return c.json({ error: { code, message } }, STATUS[code] ?? 400);
  };
  /** The request's JSON once size, window and signature hold; otherwise the refusal. */
  async function readSigned(c: Context): Promise<{ json: unknown } | { refused: Response }> {
    const length = Number(c.req.header('content-length') ?? NaN);
    if (!Number.isFinite(length)) {
      return { refused: refuse(c, 'BAD_REQUEST', 'Content-Length is required') };
    }
    if (length > maxBytes) {
      return { refused: refuse(c, 'PAYLOAD_TOO_LARGE', `request over ${maxBytes} bytes`) };
    }
    const body = await c.req.text();
    const check = await verifyStateReport({
      secret: opts.secret,
      body,
      timestamp: c.req.header(STATE_CALLBACK_HEADERS.timestamp),
      signature: c.req.header(STATE_CALLBACK_HEADERS.signature),
      now: now(),
      windowMs: opts.windowMs,
    });
    if (check !== 'ok') return { refused: refuse(c, 'UNAUTHORIZED', `refused: ${check}`) };
    try {
      return { json: JSON.parse(body) as unknown };
    } catch {
      return { refused: refuse(c, 'BAD_REQUEST', 'body is not JSON') };
    }
  }
  return { refuse, readSigned };
}
