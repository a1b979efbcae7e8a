// Request contexts. HTTP carries the key in `Authorization: Bearer`; a WebSocket carries it in
// `connectionParams.apiKey` (browsers cannot set headers on a WebSocket). The WebSocket context
// is created once per connection: a connection without params or with a bad key is refused
// there (the adapter answers the error and closes), never treated as anonymous. Every call is
// admitted again by the gatekeeper (procedures.ts), whatever the transport.

import { TRPCError } from '@trpc/server';
import type { CreateWSSContextFnOptions } from '@trpc/server/adapters/ws';
import { bearerToken, type ApiKeyAuth } from '../auth/key-cache.js';
import { UNAUTHORIZED_MESSAGE, type StreamSlotOwner } from '../auth/gatekeeper.js';

export { UNAUTHORIZED_MESSAGE };

/** A `type`, not an `interface`: @hono/trpc-server's context must be assignable to a Record. */
export type GatewayContext = {
  /** The credential as presented; resolved to a tenant by the `admit` middleware. */
  apiKey: string | null;
  /** The request's W3C `traceparent` header as sent (checked where it is used). */
  traceparent: string | null;
  /** The client's address, for failed-auth throttling; null when unknown. */
  address: string | null;
  /** The WebSocket's stream counter (subscriptions per socket); null over HTTP. */
  socket: StreamSlotOwner | null;
  /** The HTTP request (it holds a per-key in-flight slot); null on a WebSocket. */
  request: Request | null;
};

export function createHttpContext(
  authorization: string | undefined,
  traceparent?: string | undefined,
  address?: string | undefined,
  request?: Request,
): GatewayContext {
  return {
    apiKey: bearerToken(authorization),
    traceparent: traceparent ?? null,
    address: address ?? null,
    socket: null,
    request: request ?? null,
  };
}

export function createWsContextFactory(
  auth: ApiKeyAuth,
  onAuthenticated: (socket: unknown, apiKey: string) => boolean,
): (opts: CreateWSSContextFnOptions) => Promise<GatewayContext> {
  return async ({ info, res, req }) => {
    const raw: unknown = info.connectionParams?.apiKey;
    const apiKey = typeof raw === 'string' ? raw : null;
    const principal = await auth.verify(apiKey);
    if (!principal || apiKey === null) {
      throw new TRPCError({ code: 'UNAUTHORIZED', message: UNAUTHORIZED_MESSAGE });
    }
    if (!onAuthenticated(res, apiKey)) {
      throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: 'too many sockets for this key' });
    }
    return {
      apiKey,
      traceparent: null,
      address: req.socket.remoteAddress ?? null,
      socket: { streams: 0 },
      request: null,
    };
  };
}
