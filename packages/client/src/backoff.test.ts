import { getEventListeners } from 'node:events';
import { describe, expect, test } from 'vitest';
import { backoffDelay, linkSignals, sleep } from './backoff.js';

describe('backoffDelay', () => {
  test('doubles from minMs up to maxMs, with 50–100 % jitter', () => {
    const top = () => 1;
    expect(
      [0, 1, 2, 3, 4, 5].map((a) => backoffDelay(a, { minMs: 100, maxMs: 1_000 }, top)),
    ).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(backoffDelay(3, { minMs: 100, maxMs: 1_000 }, () => 0)).toBe(400);
    expect(backoffDelay(10_000, { minMs: 1, maxMs: 50 }, top)).toBe(50);
  });
});

describe('linkSignals', () => {
  test('aborts with the reason of whichever input aborts, and disposes its listeners', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkSignals([a.signal, undefined, b.signal]);
    b.abort('stop');
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('stop');
    const again = linkSignals([a.signal]);
    again.dispose();
    a.abort();
    expect(again.signal.aborted).toBe(false);
  });

  test('one abort listener per input signal however many links follow it; none once all are disposed', () => {
    const shared = new AbortController();
    const links = Array.from({ length: 100 }, () => linkSignals([shared.signal]));
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    for (const link of links.slice(1)) link.dispose();
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    links[0]!.dispose();
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    const live = [linkSignals([shared.signal]), linkSignals([shared.signal])];
    shared.abort('closed');
    expect(live.map((l) => l.signal.reason)).toEqual(['closed', 'closed']);
  });

  test('is aborted at once when an input already is', () => {
    expect(linkSignals([AbortSignal.abort('x')]).signal.reason).toBe('x');
  });
});

test('sleep resolves early when aborted', async () => {
  const controller = new AbortController();
  const started = Date.now();
  const slept = sleep(10_000, controller.signal);
  controller.abort();
  await slept;
  expect(Date.now() - started).toBeLessThan(1_000);
});
