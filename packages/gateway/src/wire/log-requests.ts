// LOG_LEVEL=debug: one line per request (method, path, status, duration), never its body. Only
// where the logger says debug is on, so a production app carries no extra middleware.

import type { Hono } from 'hono';
import type { GatewayLogger } from '../observability/logger.js';

export function logRequests(app: Hono, logger: GatewayLogger): void {
  if (!logger.debug || !logger.isLevelEnabled?.('debug')) return;
  const debug = logger.debug.bind(logger);
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    debug('request', {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round(performance.now() - started),
    });
  });
}
