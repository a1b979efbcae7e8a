// Failed authentications are counted and throttled alike on every way in: plain HTTP calls, SSE
// subscriptions and the WebSocket login (`connectionParams`). The bug this catches: the WebSocket
// login verified keys past the gatekeeper, so 2,000 wrong secrets over it got 2,000 × 401 and no
// 429 (~500 guesses a second), while the same guesses over HTTP were cut after the burst.
// Each case plays a client at its own loopback address, so the per-address counters of one case
// do not leak into the next.

import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';
import { httpCall, sseCall, wsLogin, type RawAnswer } from '../testing/raw-calls.js';

const BURST = 6;

/** A well-formed key with `keyId` and a secret that is not its own (a guess). */
function guess(keyId: string, n: number): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz234567';
  const secret = Array.from({ length: 32 }, (_, i) => letters[(n * 7 + i * 3) % 32]).join('');
  return `sk_${keyId}_${secret}`;
}

describeEachDialect('failed authentication is throttled on every transport', (ctx) => {
  let f: GatewayFixture;
  let keyId: string;
  beforeAll(async () => {
    f = await startGateway(ctx(), {
      // No verification is reused: every login is a lookup.
      auth: { cacheTtlMs: 0 },
      limits: { failedAuthPerAddress: { perSecond: 0.001, burst: BURST } },
    });
    keyId = /^sk_(k[a-z2-7]{12})_/.exec(f.keyA)![1]!;
  });
  afterAll(async () => {
    await f?.close();
  });

  const outcomes = (answers: RawAnswer[]) => answers.map((a) => a.outcome);

  it('WebSocket logins with wrong secrets get 429 after the burst, with a retry hint and a 4429 close', async () => {
    const from = '127.0.0.2';
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await wsLogin(f.url, guess(keyId, i), from));
    expect(outcomes(answers)).toEqual([
      ...Array<string>(BURST).fill('UNAUTHORIZED'),
      ...Array<string>(20 - BURST).fill('TOO_MANY_REQUESTS'),
    ]);
    const limited = answers[BURST]!;
    expect(limited.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(limited.close?.code).toBe(4429);
    expect(limited.close?.reason).toMatch(/^retry after \d+ s$/);
    // The key's own secret from another address logs in meanwhile.
    expect((await wsLogin(f.url, f.keyA, '127.0.0.3')).outcome).toBe('ADMITTED');
  });

  it('one counter for HTTP, SSE and WebSocket failures, and the same 429 on each', async () => {
    const from = '127.0.0.4';
    const failures: RawAnswer[] = [];
    for (let i = 0; i < BURST / 3; i++) {
      failures.push(await httpCall(f.url, 'jobs.list', 'query', guess(keyId, 100 + i), {}, from));
      failures.push(await sseCall(f.url, 'jobs.watchAll', guess(keyId, 200 + i), {}, 400, from));
      failures.push(await wsLogin(f.url, guess(keyId, 300 + i), from));
    }
    expect(outcomes(failures)).toEqual(Array<string>(BURST).fill('UNAUTHORIZED'));
    const http = await httpCall(f.url, 'jobs.list', 'query', guess(keyId, 400), {}, from);
    const sse = await sseCall(f.url, 'jobs.watchAll', guess(keyId, 401), {}, 400, from);
    const ws = await wsLogin(f.url, guess(keyId, 402), from);
    expect(outcomes([http, sse, ws])).toEqual(Array<string>(3).fill('TOO_MANY_REQUESTS'));
    // HTTP and SSE alike: 429 with Retry-After, before any stream starts.
    for (const a of [http, sse]) {
      expect(a.status).toBe(429);
      expect(a.retryAfterMs).toBeGreaterThanOrEqual(1000);
    }
    expect(ws.retryAfterMs).toBeGreaterThanOrEqual(1000);
  });
});
