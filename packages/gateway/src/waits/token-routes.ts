// `GET /v1/tokens/:token` (the token's status) and `POST /v1/tokens/:token` (complete it with
// `{ payload }`): no API key — the token is the authority, so these routes are public, tenant-
// scoped by the token's own row, and throttled like failed authentication: an unknown token
// counts against the caller's address (and the presented value), so guessing gets 429s before
// it gets lookups. A token completes once: a second POST is refused (409, `TOKEN_USED`) and the
// first one's effect stands exactly once; an expired one is refused (410, `TOKEN_EXPIRED`).
// Order: shape (400) → throttle (429) → lookup (404) → state (409/410) → payload (400) → write.

import { TOKEN_PATTERN, TokenCompleteInput, type TokenView } from '@sluice/contracts';
import type { Context, Hono } from 'hono';
import { createFailedAuthThrottle, type FailedAuthLimits } from '../auth/failed-auth-throttle.js';
import { errorResponse } from '../downloads/serve-download.js';
import type { GatewayLogger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { hashToken } from './token-hash.js';
import type { WaitResumer } from './wait-resumer.js';

export interface TokenRouteDeps {
  waits: WaitResumer;
  metrics: GatewayMetrics;
  logger: GatewayLogger;
  limits: FailedAuthLimits;
  address(c: Context): string | undefined;
}

/** Largest completion body: a decision and a short note, not a document. */
const MAX_BODY_BYTES = 64 * 1024;

export function registerTokens(app: Hono, deps: TokenRouteDeps): void {
  const throttle = createFailedAuthThrottle(deps.limits);
  const reject = (
    status: number,
    code: string,
    message: string,
    headers?: Record<string, string>,
  ) => {
    deps.metrics.reject(code);
    return errorResponse(status, code, message, headers);
  };

  /** The token's hash once the throttle lets the lookup happen, or the refusal. */
  async function admit(c: Context) {
    const token = c.req.param('token') ?? '';
    if (!TOKEN_PATTERN.test(token)) return { refusal: reject(400, 'BAD_REQUEST', 'not a token') };
    const ticket = await throttle.begin(token, deps.address(c) ?? null);
    if (ticket.waitMs > 0)
      return {
        refusal: reject(429, 'RATE_LIMITED', 'too many unknown tokens', {
          'Retry-After': String(Math.max(1, Math.ceil(ticket.waitMs / 1000))),
        }),
      };
    const hash = await hashToken(token);
    const row = await deps.waits.token(hash).catch((error: unknown) => {
      ticket.settle('unknown');
      throw error;
    });
    ticket.settle(row ? 'verified' : 'refused');
    if (!row) return { refusal: reject(404, 'NOT_FOUND', 'unknown token') };
    return { hash, row };
  }

  app.get('/v1/tokens/:token', async (c) => {
    const a = await admit(c);
    if ('refusal' in a) return a.refusal;
    const view: TokenView = {
      status: a.row.status,
      event: a.row.event,
      expiresAt: a.row.expiresAt,
      usedAt: a.row.usedAt,
    };
    return c.json(view);
  });

  app.post('/v1/tokens/:token', async (c) => {
    const a = await admit(c);
    if ('refusal' in a) return a.refusal;
    if (a.row.status === 'used' && !deps.waits.usable('used'))
      return reject(409, 'TOKEN_USED', 'the token was used already');
    if (a.row.status === 'expired' || a.row.status === 'cancelled')
      return reject(410, 'TOKEN_EXPIRED', `the token is ${a.row.status}`);
    const text = await c.req.text();
    if (text.length > MAX_BODY_BYTES) return reject(413, 'PAYLOAD_TOO_LARGE', 'body too large');
    let body: unknown;
    try {
      body = text.length === 0 ? {} : JSON.parse(text);
    } catch {
      return reject(400, 'BAD_REQUEST', 'body: not JSON');
    }
    const input = TokenCompleteInput.safeParse(body);
    if (!input.success) return reject(400, 'BAD_REQUEST', 'body: expected { payload }');
    let answer;
    try {
      answer = await deps.waits.complete(a.hash, input.data.payload);
    } catch (error) {
      const e = error as { code?: string; message?: string };
      if (e.code === 'BAD_REQUEST') return reject(400, 'BAD_REQUEST', e.message ?? 'bad payload');
      throw error;
    }
    switch (answer.kind) {
      case 'not_found':
        return reject(404, 'NOT_FOUND', 'unknown token');
      case 'refused':
        return answer.status === 'used'
          ? reject(409, 'TOKEN_USED', 'the token was used already')
          : reject(410, 'TOKEN_EXPIRED', `the token is ${answer.status}`);
      case 'job_ended':
        return reject(409, 'JOB_ENDED', 'the job ended: nothing waits for this token');
      case 'completed':
        deps.logger.info?.('token completed', { jobId: a.row.jobId, event: a.row.event });
        return c.json({ status: 'used', delivered: answer.signal.delivered });
    }
  });
}
