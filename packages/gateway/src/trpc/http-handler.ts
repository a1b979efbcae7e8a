// The tRPC-over-HTTP handler both gateways mount on `/trpc/*` (Node and Workers alike): batches
// bounded, the request's context, 429s answered with Retry-After, internal errors logged.
//
// An SSE subscription refused for a rate limit is answered 429 + Retry-After with the same JSON
// body as a call, before any stream starts. tRPC itself answers every subscription 200 and sends
// a refusal as the stream's first error event, which neither a proxy nor an EventSource can read
// as "slow down" (an EventSource even reconnects at once). Other refusals keep tRPC's answer.

import { trpcServer } from '@hono/trpc-server';
import { MAX_BATCH_CALLS } from '@sluice/contracts';
import type { AnyTRPCRouter, TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { Context, MiddlewareHandler } from 'hono';
import { retryAfterSeconds } from '../auth/admit-http.js';
import type { GatewayLogger } from '../observability/logger.js';
import { createHttpContext, type GatewayContext } from './context.js';
import { formatError } from './errors.js';

/** The details of a SluiceError cause (its `retryAfterMs`), through tRPC's wrapping. */
function detailsOf(cause: unknown): Record<string, unknown> | undefined {
  for (let c = cause, i = 0; c && i < 5; c = (c as { cause?: unknown }).cause, i++) {
    const details = (c as { details?: unknown }).details;
    if (typeof details === 'object' && details !== null) return details as Record<string, unknown>;
  }
  return undefined;
}

export function trpcHttpHandler(o: {
  router: AnyTRPCRouter;
  logger: GatewayLogger;
  /** The client's address (failed-auth throttling per address). */
  address: (c: Context) => string | undefined;
  /** Every refused call's tRPC code (the gateway's reject counter). */
  onReject?: (code: string) => void;
}): MiddlewareHandler {
  // Subscriptions refused for a rate limit, by their request (seen before tRPC builds the stream).
  const limited = new WeakMap<Request, { error: TRPCError; path: string | undefined }>();
  const handler = trpcServer({
    router: o.router,
    endpoint: '/trpc',
    // Bounds the work one HTTP request can ask for (the client's httpBatchLink sends no more).
    maxBatchSize: MAX_BATCH_CALLS,
    createContext: (_opts, c) =>
      createHttpContext(
        c.req.header('authorization'),
        c.req.header('traceparent'),
        o.address(c),
        c.req.raw,
      ) satisfies GatewayContext,
    // 429s carry Retry-After (the longest any call in the batch must wait).
    responseMeta: ({ errors }) => {
      const limited = errors.filter((e) => e.code === 'TOO_MANY_REQUESTS');
      if (limited.length === 0) return {};
      const seconds = Math.max(
        ...limited.map((e) => Number(retryAfterSeconds(detailsOf(e.cause)))),
      );
      return { headers: { 'retry-after': String(seconds) } };
    },
    onError: ({ error, path, type, req }) => {
      if (type === 'subscription' && error.code === 'TOO_MANY_REQUESTS') {
        limited.set(req, { error, path });
      }
      o.onReject?.(error.code);
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        o.logger.error('procedure failed', { path, error: error.cause ?? error });
      }
    },
  });
  return async (c, next) => {
    const response = await handler(c, next);
    const refusal = limited.get(c.req.raw);
    const isStream = response?.headers.get('content-type')?.startsWith('text/event-stream');
    if (!refusal || !response || !isStream) return response;
    limited.delete(c.req.raw);
    // Nobody reads the stream tRPC built around the error: release it.
    await response.body?.cancel().catch(() => {});
    return rateLimitedAnswer(refusal.error, refusal.path);
  };
}

/** The 429 a call gets (tRPC's error shape through our formatter), for a refused subscription. */
function rateLimitedAnswer(error: TRPCError, path: string | undefined): Response {
  const shape = formatError({
    shape: {
      code: TRPC_ERROR_CODES_BY_KEY.TOO_MANY_REQUESTS,
      message: error.message,
      data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429, ...(path ? { path } : {}) },
    },
    error,
  });
  return Response.json(
    { error: shape },
    { status: 429, headers: { 'retry-after': retryAfterSeconds(detailsOf(error.cause)) } },
  );
}
