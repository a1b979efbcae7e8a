// The holdings are the one owner of what bounds the reads: a delivery asked for counts from the
// read until its attempt is stored, moving from incoming to waiting to executing to finishing
// without ever being counted twice or dropped. A count kept in two places drifts: the worker then
// reads more than its prefetch (or stops reading for good). These cases walk the counts through
// every move; the attempts are real records, nothing is mocked.

import type { Delivery } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { createAttempt, type Attempt } from '../attempt/attempt.js';
import { createCounters } from '../metrics.js';
import { Holdings } from './holdings.js';

function attempt(n: number): Attempt {
  const delivery: Delivery = { id: `d${n}`, pointer: null, transportDeliveries: 1 };
  return createAttempt({
    delivery,
    job: {
      id: `j${n}`,
      tenantId: 't',
      kind: 'k',
      version: 'v1',
      input: {},
      fileIds: [],
      maxAttempts: 3,
      epoch: 1,
      attempts: 1,
      attemptId: `a${n}`,
    },
    fence: { epoch: 0, lastSeq: 0, state: 'queued' },
    started: false,
    startFrom: 'queued',
  });
}

function holdings(concurrency = 2, readBatch = 2, prefetch = 2) {
  const counters = createCounters();
  const stop = new AbortController();
  const h = new Holdings({ concurrency, readBatch, prefetch, stopped: stop.signal, counters });
  return { h, counters, stop };
}

describe('holdings', () => {
  it('counts a delivery once from the read to its stored outcome', () => {
    const { h } = holdings(2, 2, 2);
    expect(h.room()).toBe(2);
    h.asking(2);
    // asked for 2, none admitted yet: 2 + 2 − 2 left, capped by the read batch
    expect(h.room()).toBe(2);
    h.asking(2);
    expect(h.room()).toBe(0);
    const [a, b, c] = [attempt(1), attempt(2), attempt(3)];
    h.admit([a, b, c]);
    h.notComing(1); // the fourth delivery never came
    expect(h.room()).toBe(1);
    expect(h.heldCount).toBe(3);
    // two slots: the third waits
    const first = h.nextWaiting() as Attempt;
    h.startRunning(first);
    const second = h.nextWaiting() as Attempt;
    h.startRunning(second);
    expect(h.nextWaiting()).toBeUndefined();
    expect([first, second]).toEqual([a, b]);
    expect(h.running.size).toBe(2);
    expect(h.room()).toBe(1);
    // a handler ends: the slot frees, the outcome is stored, the delivery is no longer held
    h.stopRunning(a);
    expect(h.nextWaiting()).toBe(c);
    h.startRunning(c);
    expect(h.room()).toBe(2);
    // an outcome being stored holds its delivery but no longer counts against the prefetch
    h.startFinishing(a);
    expect(a.phase).toBe('finishing');
    expect(h.heldCount).toBe(3);
    expect(h.room()).toBe(2);
    h.finished(a);
    expect(h.heldCount).toBe(2);
    expect(h.held().map((x) => x.job.id)).toEqual(['j2', 'j3']);
  });

  it('reads nothing while too many outcomes wait to be stored', () => {
    const { h } = holdings(1, 1, 0);
    // 4 × concurrency + readBatch = 5 outcomes being stored stop the reads
    const all = [1, 2, 3, 4, 5].map(attempt);
    h.asking(5);
    h.admit(all);
    for (const a of all) {
      h.startRunning(h.nextWaiting() as Attempt);
      h.stopRunning(a);
      h.startFinishing(a);
    }
    expect(h.room()).toBe(0);
    h.finished(all[0] as Attempt);
    expect(h.room()).toBe(1);
  });

  it('a reclaim fences the local attempt out, but a known cancel stands', () => {
    const { h, counters } = holdings();
    const [a, b] = [attempt(1), attempt(2)];
    h.asking(2);
    h.admit([a, b]);
    expect(h.isLocal('j1')).toBe(true);
    h.fenceLocal('j1');
    expect(a.cause).toBe('lease_lost');
    expect(a.controller.signal.aborted).toBe(true);
    b.cause = 'cancelled';
    h.fenceLocal('j2');
    expect(b.cause).toBe('cancelled');
    expect(counters.lostLeases).toBe(1);
    // a drain's cause is overridden: an attempt that lost its job writes nothing more
    const c = attempt(3);
    h.asking(1);
    h.admit([c]);
    c.cause = 'drain';
    h.lose(c);
    expect(c.cause).toBe('lease_lost');
    expect(h.isLocal('j9')).toBe(false);
  });

  it('the drain takes the waiting attempts out unstarted', () => {
    const { h } = holdings(1, 3, 3);
    const all = [1, 2, 3].map(attempt);
    h.asking(3);
    h.admit(all);
    h.startRunning(h.nextWaiting() as Attempt);
    const taken = h.takeWaiting();
    expect(taken.map((a) => a.job.id)).toEqual(['j2', 'j3']);
    expect(h.held().map((a) => a.job.id)).toEqual(['j1']);
    expect(h.jobOf('j2')).toBeUndefined();
  });

  it('a change wakes the read loop and the drain; the stop ends only the read loop', async () => {
    const { h, stop } = holdings();
    const a = attempt(1);
    h.asking(1);
    h.admit([a]);
    let roomWoke = false;
    let drainWoke = false;
    void h.waitForRoom().then(() => (roomWoke = true));
    void h.waitForChange().then(() => (drainWoke = true));
    h.startFinishing(a);
    await Promise.resolve();
    expect([roomWoke, drainWoke]).toEqual([true, true]);
    roomWoke = false;
    drainWoke = false;
    void h.waitForRoom().then(() => (roomWoke = true));
    void h.waitForChange().then(() => (drainWoke = true));
    stop.abort();
    await Promise.resolve();
    expect([roomWoke, drainWoke]).toEqual([true, false]);
    h.finished(a);
    await Promise.resolve();
    expect(drainWoke).toBe(true);
  });
});
