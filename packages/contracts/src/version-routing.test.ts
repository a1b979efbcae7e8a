import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatJobId } from './job-id.js';
import { assertRolloutPercent, chooseVersion, hashKey, routeByPrefix } from './version-routing.js';

const keys = Array.from(
  { length: 10_000 },
  (_, i) => `tenant-${i % 37}\u0000demo.summarize\u0000key-${i}`,
);

describe('chooseVersion', () => {
  it('is deterministic: same key, same answer', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 100 }), (key, pct) => {
        const cfg = { current: 'v1', next: 'v2', rolloutPercent: pct };
        expect(chooseVersion(key, cfg)).toBe(chooseVersion(key, cfg));
      }),
    );
  });
  it('defaults to 0: nothing goes to next', () => {
    expect(keys.every((k) => chooseVersion(k, { current: 'v1', next: 'v2' }) === 'v1')).toBe(true);
    expect(
      keys.every(
        (k) => chooseVersion(k, { current: 'v1', next: 'v2', rolloutPercent: 0 }) === 'v1',
      ),
    ).toBe(true);
  });
  it('100 sends every key to next; no next means current', () => {
    expect(
      keys.every(
        (k) => chooseVersion(k, { current: 'v1', next: 'v2', rolloutPercent: 100 }) === 'v2',
      ),
    ).toBe(true);
    expect(
      keys.every((k) => chooseVersion(k, { current: 'v1', rolloutPercent: 50 }) === 'v1'),
    ).toBe(true);
  });
  it.each([1, 5, 10, 25, 33.3, 50, 75, 90, 99])(
    'over 10,000 keys the share at %s%% is within ±1.5 points',
    (pct) => {
      const share =
        (keys.filter(
          (k) => chooseVersion(k, { current: 'v1', next: 'v2', rolloutPercent: pct }) === 'v2',
        ).length /
          keys.length) *
        100;
      expect(Math.abs(share - pct)).toBeLessThanOrEqual(1.5);
    },
  );
  it('raising the percentage only moves keys from current to next (monotone rollout)', () => {
    for (const k of keys.slice(0, 2000)) {
      const at20 = chooseVersion(k, { current: 'v1', next: 'v2', rolloutPercent: 20 });
      const at60 = chooseVersion(k, { current: 'v1', next: 'v2', rolloutPercent: 60 });
      if (at20 === 'v2') expect(at60).toBe('v2');
    }
  });
  it.each([-1, 100.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects rolloutPercent %s', (pct) => {
    expect(() =>
      chooseVersion('k', { current: 'v1', next: 'v2', rolloutPercent: pct }),
    ).toThrowError(/rolloutPercent must be 0–100/);
    expect(() => assertRolloutPercent(pct)).toThrowError(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
  });
  it('accepts the boundaries', () => {
    expect(assertRolloutPercent(0)).toBe(0);
    expect(assertRolloutPercent(100)).toBe(100);
  });
});

describe('hashKey', () => {
  it('is a stable unsigned 32-bit value', () => {
    expect(hashKey('')).toBe(hashKey(''));
    expect(hashKey('abc')).toBe(hashKey('abc'));
    expect(hashKey('abc')).not.toBe(hashKey('abd'));
    expect(hashKey('a')).toBeGreaterThanOrEqual(0);
    expect(hashKey('a')).toBeLessThan(2 ** 32);
    // pinned: changing the hash silently re-routes every in-flight rollout
    expect([hashKey('a'), hashKey('b'), hashKey('hello')]).toMatchInlineSnapshot(`
      [
        444641715,
        2193908274,
        2290972270,
      ]
    `);
  });
});

describe('routeByPrefix', () => {
  it('routes by the id prefix when the version is registered', () => {
    expect(routeByPrefix(formatJobId('v2'), ['v1', 'v2'])).toEqual({ ok: true, version: 'v2' });
    expect(routeByPrefix(formatJobId('v1'), ['v1'])).toEqual({ ok: true, version: 'v1' });
  });
  it('never falls back: an unregistered version is VERSION_NOT_ROUTABLE', () => {
    const r = routeByPrefix(formatJobId('v2'), ['v1']);
    expect(r).toEqual({
      ok: false,
      reason: 'VERSION_NOT_ROUTABLE',
      version: 'v2',
      detail: 'no handler registered for v2 (registered: v1)',
    });
    const none = routeByPrefix(formatJobId('v1'), []);
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.detail).toContain('registered: none');
  });
  it('an id without a version prefix is not routable', () => {
    const r = routeByPrefix('job-123', ['v1']);
    expect(r).toEqual({
      ok: false,
      reason: 'VERSION_NOT_ROUTABLE',
      version: null,
      detail: 'job id "job-123" carries no version prefix',
    });
  });
});

describe('chooseVersion: basis-point buckets', () => {
  // Keys found by search, with their bucket (hashKey % 10,000); pinned like the hash above.
  const bucketOf = (k: string) => hashKey(k) % 10_000;
  const cfg = (rolloutPercent: number) => ({ current: 'v1', next: 'v2', rolloutPercent });
  it('a percentage p sends exactly the buckets below p × 100 to next', () => {
    expect(bucketOf('key-17735')).toBe(0);
    expect(bucketOf('key-11')).toBe(1);
    expect(bucketOf('key-3783')).toBe(2499);
    expect(bucketOf('key-2141')).toBe(2500);
    expect(bucketOf('key-1626')).toBe(9999);
    // 0.01 % is one bucket: bucket 0 only
    expect(chooseVersion('key-17735', cfg(0.01))).toBe('v2');
    expect(chooseVersion('key-11', cfg(0.01))).toBe('v1');
    expect(chooseVersion('key-11', cfg(0.02))).toBe('v2');
    // 25 %: buckets 0–2499
    expect(chooseVersion('key-3783', cfg(25))).toBe('v2');
    expect(chooseVersion('key-2141', cfg(25))).toBe('v1');
    // only 100 % reaches the last bucket
    expect(chooseVersion('key-1626', cfg(99.99))).toBe('v1');
    expect(chooseVersion('key-1626', cfg(100))).toBe('v2');
    expect(chooseVersion('key-17735', cfg(0))).toBe('v1');
  });
});

describe('routeByPrefix: detail', () => {
  it('lists every registered version, comma-separated', () => {
    const r = routeByPrefix(formatJobId('v2'), ['v1', 'v3']);
    expect(r).toMatchObject({
      ok: false,
      detail: 'no handler registered for v2 (registered: v1, v3)',
    });
  });
});
