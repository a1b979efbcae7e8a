// Catches a read loop that never yields while reads answer at once (a synchronous driver resolves
// every read as a microtask): timers (renewals, outcome writes) would starve. The consumer is a
// stand-in: only the loop's turns are under test, and the admission of what it returns
// (acknowledged, nothing run).
import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import type { SluiceDatabase } from '@sluice/storage';
import { expect, it } from 'vitest';
import { DEFAULT_HOOKS } from '../hooks.js';
import { silentLogger } from '../logger.js';
import { createCounters } from '../metrics.js';
import type { AdmitDeps } from './admit-batch.js';
import type { AttemptRunner } from './attempt-runner.js';
import { Holdings } from './holdings.js';
import { ReadLoop } from './read-loop.js';

type Step = 'batch' | 'empty';

/** A loop over a stand-in consumer whose reads answer at once: one delivery (`batch`) or none. */
function loopOver(
  steps: (n: number) => Step,
  onRead: (n: number) => void,
  onLaunch: () => void = () => {},
) {
  const stop = new AbortController();
  const counters = createCounters();
  let reads = 0;
  let delivered = 0;
  const consumer = {
    name: 'stand-in',
    capabilities: {},
    init: () => Promise.resolve(),
    read: () => {
      onRead(++reads);
      const got =
        steps(reads) === 'empty'
          ? []
          : [{ id: `d${++delivered}`, pointer: null, transportDeliveries: 1 }];
      return Promise.resolve(got);
    },
    ack: () => Promise.resolve(),
    release: () => Promise.resolve(),
  } as unknown as RuntimeConsumer<Delivery>;
  const holdings = new Holdings({
    concurrency: 4,
    readBatch: 4,
    prefetch: 4,
    stopped: stop.signal,
    counters,
  });
  const admission = {
    database: {} as SluiceDatabase,
    consumer,
    counters,
    logger: silentLogger,
    workerId: 'w',
    local: holdings,
    hooks: {
      ...DEFAULT_HOOKS,
      decideDelivery: () => ({ action: 'ack' }),
    },
  } as unknown as AdmitDeps<Delivery>;
  const loop = new ReadLoop({
    consumer,
    holdings,
    runner: { launch: onLaunch } as unknown as AttemptRunner<Delivery>,
    admission,
    stopped: stop.signal,
    unreadyAfterReadFailures: 3,
    counters,
    logger: silentLogger,
    hooks: admission.hooks,
  });
  return { loop, stop };
}

it('lets timers in while every read answers at once', async () => {
  let reads = 0;
  let timerAt: number | undefined;
  const { loop, stop } = loopOver(
    (n) => (n % 2 === 0 ? 'empty' : 'batch'),
    (n) => {
      reads = n;
      // A loop that never yields would call read forever: end it, and the test fails below.
      if (n >= 10_000) stop.abort();
    },
  );
  setTimeout(() => {
    timerAt = reads;
    stop.abort();
  }, 1);
  await loop.start();
  await loop.done;
  expect(timerAt).toBeDefined();
  expect(timerAt as number).toBeLessThan(10_000);
});

it("starts a batch's handlers, then asks for the next read, then yields the turn", async () => {
  const order: string[] = [];
  const { loop, stop } = loopOver(
    () => 'batch',
    (n) => {
      order.push(`read ${n}`);
      // A turn of the event loop that begins after this read answers.
      if (n === 1) setImmediate(() => order.push('turn'));
      if (n === 2) stop.abort();
    },
    () => {
      order.push('launch');
      // A handler's synchronous start comes after a few awaits (parse, stages): microtasks.
      void (async () => {
        for (let i = 0; i < 10; i++) await Promise.resolve();
        order.push('handler');
      })();
    },
  );
  await loop.start();
  await loop.done;
  expect(order.slice(0, 5)).toEqual(['read 1', 'launch', 'handler', 'read 2', 'turn']);
});
