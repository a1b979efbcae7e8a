// A key's owner is not locked out by someone guessing at its id. The bug this catches: failed
// authentications were counted per key id (the public `sk_<id>_` part) and, past the limit, every
// uncached request presenting that id was refused before any lookup — the owner's too. One wrong
// secret a second made the owner's requests fail 429 in 86–94 of 118 tries (only the 2 s auth
// cache let some through). The guesser is throttled by its address and by the secret it presents;
// a request presenting the right secret keeps working, on every transport. The throttle still
// stops the guesser: past its burst it gets 429s and its guesses are no longer looked up, also
// when it rotates through many key ids.

import { createApiKey } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger, startGateway, type GatewayFixture } from '../testing/fixture.js';
import { httpCall, sseCall, wsLogin } from '../testing/raw-calls.js';
import { resolveLimits } from '../limits/limits.js';
import { createApiKeyAuth, type ApiKeyAuth } from './api-key-auth.js';
import { createGatekeeper } from './gatekeeper.js';

const ADDRESS_BURST = 5;
const SECRET_BURST = 3;
const never = { perSecond: 0.001 };

/** The `n`-th wrong secret for `keyId` (distinct for every `n`). */
function guess(keyId: string, n: number): string {
  return `sk_${keyId}_${letters(n, 12)}${'q'.repeat(20)}`;
}

/** `n` as `count` base-32 letters (the key alphabet). */
function letters(n: number, count: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let out = '';
  for (let rest = n, j = 0; j < count; j++, rest = Math.floor(rest / 32))
    out += alphabet[rest % 32];
  return out;
}

/** The `i`-th well-formed key id (`k` and 12 base32 letters). */
const keyIdFor = (i: number) => `k${letters(i, 12)}`;

describeEachDialect('a key owner is not locked out by guesses at its id', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx(), {
      // Nothing is reused from the auth cache: every request of the owner is verified again.
      auth: { cacheTtlMs: 0 },
      limits: {
        failedAuthPerAddress: { ...never, burst: ADDRESS_BURST },
        failedAuthPerSecret: { ...never, burst: SECRET_BURST },
      },
    });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('the owner succeeds on every request while guessers from four addresses hammer its key id', async () => {
    const owner = await createApiKey(ctx().database.db, 'acme');
    const guessers = ['127.0.0.5', '127.0.0.6', '127.0.0.7', '127.0.0.8'];
    const guesses: number[] = [];
    const mine: number[] = [];
    for (let i = 0; i < 32; i++) {
      const from = guessers[i % guessers.length]!;
      guesses.push(
        (await httpCall(f.url, 'jobs.list', 'query', guess(owner.id, i), {}, from)).status,
      );
      mine.push((await httpCall(f.url, 'jobs.list', 'query', owner.key, {})).status);
    }
    // 32 wrong secrets at one key id, far over any per-id limit: the owner never notices.
    expect(mine).toEqual(Array<number>(32).fill(200));
    // Each guesser gets its burst of 401s, then 429s (its guesses are not checked any more).
    expect(guesses.filter((s) => s === 401)).toHaveLength(ADDRESS_BURST * guessers.length);
    expect(guesses.slice(-8)).toEqual(Array<number>(8).fill(429));
    // The owner's subscriptions and WebSocket logins work too.
    expect((await sseCall(f.url, 'jobs.watchAll', owner.key, {})).outcome).toBe('ADMITTED');
    expect((await wsLogin(f.url, owner.key)).outcome).toBe('ADMITTED');
  });

  it('behind the guesser’s own address, a key verified before keeps working; an unverified one waits', async () => {
    const from = '127.0.0.9';
    const owner = await createApiKey(ctx().database.db, 'acme');
    const stranger = await createApiKey(ctx().database.db, 'acme');
    expect((await httpCall(f.url, 'jobs.list', 'query', owner.key, {}, from)).status).toBe(200);
    const guesses = [];
    for (let i = 0; i < 12; i++) {
      guesses.push(
        (await httpCall(f.url, 'jobs.list', 'query', guess(owner.id, i), {}, from)).status,
      );
    }
    expect(guesses).toEqual([
      ...Array<number>(ADDRESS_BURST).fill(401),
      ...Array<number>(12 - ADDRESS_BURST).fill(429),
    ]);
    for (let i = 0; i < 5; i++) {
      expect((await httpCall(f.url, 'jobs.list', 'query', owner.key, {}, from)).status).toBe(200);
    }
    expect((await sseCall(f.url, 'jobs.watchAll', owner.key, {}, 400, from)).outcome).toBe(
      'ADMITTED',
    );
    expect((await wsLogin(f.url, owner.key, from)).outcome).toBe('ADMITTED');
    // A key this gateway has not verified yet is not looked up from a throttled address.
    const refused = await httpCall(f.url, 'jobs.list', 'query', stranger.key, {}, from);
    expect(refused.status).toBe(429);
    expect((await httpCall(f.url, 'jobs.list', 'query', stranger.key, {})).status).toBe(200);
  });

  /** The gatekeeper alone, counting the lookups it lets through to the database. */
  function countingGate() {
    const inner = createApiKeyAuth(ctx().database.db, { cacheTtlMs: 0 });
    let lookups = 0;
    const auth: ApiKeyAuth = {
      ...inner,
      verify(key) {
        lookups++;
        return inner.verify(key);
      },
    };
    const gate = createGatekeeper({
      db: ctx().database.db,
      auth,
      logger: silentLogger,
      limits: resolveLimits({
        failedAuthPerAddress: { ...never, burst: ADDRESS_BURST },
        failedAuthPerSecret: { ...never, burst: SECRET_BURST },
      }),
      every: () => () => {},
    });
    return { gate, lookups: () => lookups };
  }

  it('a guesser rotating through 200 key ids from one address: lookups stop after its burst', async () => {
    const { gate, lookups } = countingGate();
    const codes = [];
    for (let i = 0; i < 200; i++) {
      const admitted = await gate.admit({
        apiKey: guess(keyIdFor(i), i),
        address: '203.0.113.7',
        scope: 'jobs:read',
      });
      codes.push(admitted.ok ? 'OK' : admitted.error.code);
    }
    expect(codes).toEqual([
      ...Array<string>(ADDRESS_BURST).fill('UNAUTHORIZED'),
      ...Array<string>(200 - ADDRESS_BURST).fill('RATE_LIMITED'),
    ]);
    expect(lookups()).toBe(ADDRESS_BURST);
    await gate.close();
  });

  it('100 concurrent guesses from one address: no more lookups than its burst', async () => {
    const { gate, lookups } = countingGate();
    const owner = await createApiKey(ctx().database.db, 'acme');
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        gate.admit({ apiKey: guess(owner.id, i), address: '203.0.113.8', scope: 'jobs:read' }),
      ),
    );
    const codes = answers.map((a) => (a.ok ? 'OK' : a.error.code));
    expect(codes.filter((c) => c === 'UNAUTHORIZED')).toHaveLength(ADDRESS_BURST);
    expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(100 - ADDRESS_BURST);
    expect(lookups()).toBe(ADDRESS_BURST);
    await gate.close();
  });

  it('a burst of 100 concurrent first calls with a new key are all admitted', async () => {
    const { gate } = countingGate();
    const fresh = await createApiKey(ctx().database.db, 'globex');
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        gate.admit({ apiKey: fresh.key, address: '203.0.113.9', scope: 'jobs:read' }),
      ),
    );
    expect(answers.filter((a) => !a.ok).map((a) => !a.ok && a.error.code)).toEqual([]);
    await gate.close();
  });

  it('one wrong secret replayed from 50 addresses is throttled by the secret', async () => {
    const { gate, lookups } = countingGate();
    const owner = await createApiKey(ctx().database.db, 'acme');
    const wrong = guess(owner.id, 1);
    const codes = [];
    for (let i = 0; i < 50; i++) {
      const admitted = await gate.admit({
        apiKey: wrong,
        address: `198.51.100.${i}`,
        scope: 'jobs:read',
      });
      codes.push(admitted.ok ? 'OK' : admitted.error.code);
    }
    expect(codes).toEqual([
      ...Array<string>(SECRET_BURST).fill('UNAUTHORIZED'),
      ...Array<string>(50 - SECRET_BURST).fill('RATE_LIMITED'),
    ]);
    expect(lookups()).toBe(SECRET_BURST);
    // The owner, whose secret is another, is admitted from any of those addresses.
    const ok = await gate.admit({ apiKey: owner.key, address: '198.51.100.1', scope: 'jobs:read' });
    expect(ok.ok).toBe(true);
    await gate.close();
  });
});
