// The tRPC-over-HTTP handler both gateways mount on `/trpc/*` (Node and Workers alike): batches
// bounded, the request's context, 429s answered with Retry-After, internal errors logged.

import { trpcServer } from '@hono/trpc-server';
import { MAX_BATCH_CALLS } from '@sluice/contracts';
import type { AnyTRPCRouter } from '@trpc/server';
import type { Context } from 'hono';
import { retryAfterSeconds } from '../auth/admit-http.js';
import type { GatewayLogger } from '../logger.js';
import { createHttpContext, type GatewayContext } from './context.js';

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
}) {
  return trpcServer({
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
    onError: ({ error, path }) => {
      o.onReject?.(error.code);
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        o.logger.error('procedure failed', { path, error: error.cause ?? error });
      }
    },
  });
}
