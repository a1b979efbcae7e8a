// The guard's WebCrypto key (Node and workerd) and the Node entry's synchronous one are the same
// function: a job moved between runtimes sends the provider the same Idempotency-Key.
import { describe, expect, it } from 'vitest';
import { idempotencyKeyOfWeb } from './guard-deps.js';
import { idempotencyKeyOf } from './idempotency-key.js';

describe('idempotency keys', () => {
  it('the web and Node keys are equal for any input, and differ per call', async () => {
    const cases = [
      ['v1-aaaaaaaaaaaaaaaaaaaaaaaaaa', 'u0', 'sync'],
      ['v2-bbbbbbbbbbbbbbbbbbbbbbbbbb', 'unit with spaces ü', 'sync#2'],
      ['', '', ''],
    ] as const;
    const keys = new Set<string>();
    for (const [j, u, c] of cases) {
      const web = await idempotencyKeyOfWeb(j, u, c);
      expect(web).toBe(idempotencyKeyOf(j, u, c));
      expect(web).toMatch(/^sluice-[A-Za-z0-9_-]{32}$/);
      keys.add(web);
    }
    expect(keys.size).toBe(cases.length);
  });
});
