// The gatekeeper for plain HTTP routes (uploads, downloads, metrics, and an app's own routes on
// the gateway's Hono app — type 'route'): the same `admit` as tRPC calls (key, scope, rates,
// requests in flight), answered as `{ error: { code, message } }` with 401, 403 or 429
// (+ Retry-After).
//
//   const principal = await admitHttp(gateway.gate, c, 'jobs:read');
//   if (principal instanceof Response) return principal;

import type { ApiKeyScope } from '@sluice/contracts';
import type { Context } from 'hono';
import { bearerToken, type Principal } from './key-cache.js';
import type { Gatekeeper } from './gatekeeper.js';

const STATUS = { UNAUTHORIZED: 401, FORBIDDEN: 403, RATE_LIMITED: 429 } as const;

/** The client's address on @hono/node-server (its `env.incoming` is the Node request). */
export function remoteAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}

/** Seconds for a Retry-After header (at least 1). */
export function retryAfterSeconds(details: Record<string, unknown> | undefined): string {
  const ms = typeof details?.retryAfterMs === 'number' ? details.retryAfterMs : 1000;
  return String(Math.max(1, Math.ceil(ms / 1000)));
}

export async function admitHttp(
  gate: Gatekeeper,
  c: Context,
  scope: ApiKeyScope,
  onReject: (code: string) => void = () => {},
  type: 'upload' | 'download' | 'metrics' | 'route' = 'route',
): Promise<Principal | Response> {
  const admitted = await gate.admit({
    apiKey: bearerToken(c.req.header('authorization')),
    address: remoteAddress(c) ?? null,
    scope,
    call: { type, transport: 'http' },
    request: c.req.raw,
  });
  if (admitted.ok) {
    // A download's answer is a stream: its slot is held until the last byte has gone.
    if (type === 'download') gate.requests.holdUntilBodyEnds(c.req.raw);
    return admitted.principal;
  }
  const { code, message, details } = admitted.error;
  onReject(code);
  const status = code in STATUS ? STATUS[code as keyof typeof STATUS] : 500;
  const headers: Record<string, string> =
    code === 'RATE_LIMITED' ? { 'retry-after': retryAfterSeconds(details) } : {};
  return Response.json({ error: { code, message } }, { status, headers });
}
