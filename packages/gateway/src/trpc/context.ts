// Request contexts. HTTP carries the key in `Authorization: Bearer`; a WebSocket carries it in
// `connectionParams.apiKey` (browsers cannot set headers on a WebSocket). The WebSocket context
// is created once per connection: a connection without params or with a bad key is refused
// there (the adapter answers the error and closes), never treated as anonymous. The login is
// authenticated by the gatekeeper like any call, so its failures count against the same
// per-address and per-secret limits, and past them it is refused RATE_LIMITED. Every call is
// admitted again by the gatekeeper (procedures.ts), whatever the transport.

import { SluiceError } from '@sluice/contracts';
import { TRPCError } from '@trpc/server';
import type { CreateWSSContextFnOptions } from '@trpc/server/adapters/ws';
import { bearerToken } from '../auth/key-cache.js';
import { UNAUTHORIZED_MESSAGE, type Gatekeeper, type StreamSlotOwner } from '../auth/gatekeeper.js';
import { toTRPCError } from './errors.js';

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

export interface WsLoginHooks {
  /** Whether this socket may be opened for `apiKey` (sockets per key). */
  onAuthenticated(socket: unknown, apiKey: string): boolean;
  /** The login is refused for now (RATE_LIMITED): the endpoint closes the socket saying so. */
  onRateLimited(socket: unknown, error: SluiceError): void;
}

export function createWsContextFactory(
  gate: Pick<Gatekeeper, 'authenticate'>,
  hooks: WsLoginHooks,
): (opts: CreateWSSContextFnOptions) => Promise<GatewayContext> {
  return async ({ info, res, req }) => {
    const raw: unknown = info.connectionParams?.apiKey;
    const apiKey = typeof raw === 'string' ? raw : null;
    const address = req.socket.remoteAddress ?? null;
    const principal = await gate.authenticate({ apiKey, address });
    if (principal instanceof SluiceError) {
      if (principal.code === 'RATE_LIMITED') hooks.onRateLimited(res, principal);
      throw toTRPCError(principal);
    }
    if (apiKey === null) {
      throw new TRPCError({ code: 'UNAUTHORIZED', message: UNAUTHORIZED_MESSAGE });
    }
    if (!hooks.onAuthenticated(res, apiKey)) {
      throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: 'too many sockets for this key' });
    }
    return { apiKey, traceparent: null, address, socket: { streams: 0 }, request: null };
  };
}
