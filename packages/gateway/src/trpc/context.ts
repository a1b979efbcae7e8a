// Request contexts. HTTP carries the key in `Authorization: Bearer`; a WebSocket carries it in
// `connectionParams.apiKey` (browsers cannot set headers on a WebSocket). The WebSocket context
// is created once per connection: a connection without params or with a bad key is refused
// there (the adapter answers the error and closes), never treated as anonymous. Procedures
// re-verify the key on every call (through the auth cache), so a revoked key stops working on
// open connections within the cache TTL.

import { TRPCError } from '@trpc/server';
import type { CreateWSSContextFnOptions } from '@trpc/server/adapters/ws';
import { bearerToken, type ApiKeyAuth } from '../auth/api-key-auth.js';

/** A `type`, not an `interface`: @hono/trpc-server wants a Record (STACK.md). */
export type GatewayContext = {
  /** The credential as presented; resolved to a tenant by the `isAuthed` middleware. */
  apiKey: string | null;
  /** The request's W3C `traceparent` header as sent (checked where it is used). */
  traceparent: string | null;
};

export function createHttpContext(
  authorization: string | undefined,
  traceparent?: string | undefined,
): GatewayContext {
  return { apiKey: bearerToken(authorization), traceparent: traceparent ?? null };
}

export const UNAUTHORIZED_MESSAGE = 'missing or invalid API key';

export function createWsContextFactory(
  auth: ApiKeyAuth,
  onAuthenticated: (socket: unknown, apiKey: string) => void,
): (opts: CreateWSSContextFnOptions) => Promise<GatewayContext> {
  return async ({ info, res }) => {
    const raw: unknown = info.connectionParams?.apiKey;
    const apiKey = typeof raw === 'string' ? raw : null;
    const principal = await auth.verify(apiKey);
    if (!principal || apiKey === null) {
      throw new TRPCError({ code: 'UNAUTHORIZED', message: UNAUTHORIZED_MESSAGE });
    }
    onAuthenticated(res, apiKey);
    return { apiKey, traceparent: null };
  };
}
