// The tRPC request-size limit, checked before the body is parsed. A request that declares its
// length (Content-Length, no Transfer-Encoding) is judged from the header alone: Node's HTTP
// parser never delivers more bytes than declared. Only a chunked body is counted as it streams,
// by hono's `bodyLimit`.
//
// Why not `bodyLimit` for everything: it first reads `c.req.raw.body`, which makes
// @hono/node-server build a full web `Request` with a web `ReadableStream` over the socket for
// every request, instead of reading the body on its fast path. On `jobs.submit` that was ~90 µs
// CPU per request plus the garbage it leaves (bench row 6 profile), for a question the header
// answers.
//
//   app.use('/trpc/*', requestLimit({ maxSize: 1 << 20, onError: (c) => c.json(..., 413) }));

import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

export interface RequestLimitOptions {
  maxSize: number;
  onError: (c: Context) => Response | Promise<Response>;
}

export function requestLimit(options: RequestLimitOptions): MiddlewareHandler {
  const streamed = bodyLimit(options);
  return async function requestLimit(c, next) {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) {
      return streamed(c, next);
    }
    // A malformed length never reaches here (Node answers 400), so the number is exact.
    if (Number(length) > options.maxSize) return options.onError(c);
    return next();
  };
}
