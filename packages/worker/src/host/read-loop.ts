// The read side of the host: init with retry, readiness, and the read loop. Each read asks for
// as many deliveries as the holdings have room for (the read batch apart from the execution
// limit), and each batch is admitted while the next read goes out: up to four admissions at once,
// handing their attempts to the runner in read order. Runtimes differ only through their
// capability flags; nothing here knows a runtime by name.

import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import type { WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';
import { admitBatch, type AdmitDeps } from './admit-batch.js';
import type { AttemptRunner } from './attempt-runner.js';
import type { Holdings } from './holdings.js';
import { Readiness } from './readiness.js';
import { releaseAfterDelay } from './release-later.js';
import { Wake } from './wake.js';

export interface ReadLoopOptions<D extends Delivery> {
  consumer: RuntimeConsumer<D>;
  /** How much may be asked for, and where admitted attempts wait. */
  holdings: Holdings<D>;
  /** Where admitted attempts go, in read order. */
  runner: AttemptRunner<D>;
  /** What admitting a batch needs (admit-batch.ts). */
  admission: AdmitDeps<D>;
  /** Aborted when the host stops: no read after it, and every wait ends at once. */
  stopped: AbortSignal;
  /** Consecutive read failures that make the worker unready. */
  unreadyAfterReadFailures: number;
  counters: WorkerCounters;
  logger: WorkerLogger;
  /** Test seams; `awaitTurn` keeps the hand-over in read order. */
  hooks: WorkerHooks;
}

/** Batch admissions in flight at once (each is one read of job rows, no write). */
const MAX_ADMISSIONS = 4;
// Capped at 2 s: a transport back from an outage is read again within about that long (a
// transport read that hangs is torn down by its own watchdog, so this only spaces fast failures).
const backoff = (n: number) => Math.min(2000, 100 * 2 ** Math.max(0, n - 1));

/** Settles once the microtasks queued so far, and those they queue, have run. */
const afterMicrotasks = () => new Promise<void>((resolve) => process.nextTick(resolve));

export class ReadLoop<D extends Delivery> {
  private readonly readiness: Readiness;
  /** Timed waits (backoff), ended at once by the stop. */
  private readonly pause: Wake;
  private lifecycle: Promise<void> | undefined;
  private readonly admissions = new Set<Promise<void>>();
  /** Resolves once the latest admission has handed its attempts over (read order). */
  private admitted: Promise<void> = Promise.resolve();
  private lastReadWarning = -Infinity;
  private lastReadAt = 0;
  private quietReadFailures = 0;

  constructor(private readonly opts: ReadLoopOptions<D>) {
    this.readiness = new Readiness(opts.unreadyAfterReadFailures);
    this.pause = new Wake(opts.stopped);
  }

  /** Resolves once the runtime is initialised and the loop runs (or the host stops first). */
  start(): Promise<void> {
    this.lifecycle ??= this.runLifecycle();
    return this.readiness.firstReady;
  }

  /** Settles once the loop has ended (after the stop), its admissions included. */
  get done(): Promise<void> {
    return this.lifecycle ?? Promise.resolve();
  }

  /** Initialised, reading, and fewer than N consecutive read failures (the stop aside). */
  get ready(): boolean {
    return this.readiness.ready;
  }

  get consecutiveFailures(): number {
    return this.readiness.consecutiveFailures;
  }

  private async runLifecycle(): Promise<void> {
    const { consumer, logger, stopped } = this.opts;
    let failures = 0;
    while (!stopped.aborted) {
      try {
        await consumer.init();
        failures = 0;
      } catch (error) {
        this.opts.counters.initFailures++;
        logger.warn('runtime init failed; retrying', { error, runtime: consumer.name });
        await this.pause.wait(backoff(++failures));
        continue;
      }
      this.readiness.initialised(true);
      try {
        await this.readLoop();
      } catch (error) {
        // The loop is not meant to end while running: back through init.
        logger.error('read loop ended unexpectedly; re-initialising', { error });
        this.readiness.initialised(false);
        await this.pause.wait(backoff(++failures));
      }
    }
    this.readiness.loop(false);
    this.readiness.settleFirst();
  }

  private async readLoop(): Promise<void> {
    const { consumer, logger, holdings, stopped: signal } = this.opts;
    this.readiness.loop(true);
    // The turn of the event loop owed for the last batch, taken once the next read is asked for.
    let turn: Promise<void> | undefined;
    try {
      while (!signal.aborted) {
        if (this.readiness.consecutiveFailures > 0) {
          // A read that took long to fail (a watchdog, a timeout) already spaced the attempts out:
          // only the rest of the backoff is waited, so recovery is not delayed past it.
          const pause =
            backoff(this.readiness.consecutiveFailures) - (Date.now() - this.lastReadAt);
          if (pause > 0) await this.pause.wait(pause);
          if (signal.aborted) break;
        }
        const n = holdings.room();
        if (n <= 0) {
          await holdings.waitForRoom();
          continue;
        }
        holdings.asking(n);
        let deliveries: D[];
        this.lastReadAt = Date.now();
        try {
          const read = consumer.read(n, signal);
          if (turn) {
            // Awaited below: a failure meanwhile must not count as unhandled.
            read.catch(() => {});
            await turn;
            turn = undefined;
          }
          deliveries = await read;
        } catch (error) {
          holdings.notComing(n);
          if (signal.aborted) break;
          this.readFailed(error);
          continue;
        }
        holdings.notComing(n - deliveries.length);
        if (deliveries.length === 0) {
          this.readiness.readSucceeded();
          continue;
        }
        this.opts.counters.claimed += deliveries.length;
        if (signal.aborted) {
          // Read raced with stop: give them back untouched.
          holdings.notComing(deliveries.length);
          await consumer
            .release(deliveries, 0)
            .catch((error: unknown) => logger.error('release on stop failed', { error }));
          break;
        }
        // Admission runs while the next read goes out.
        const admission = this.admit(deliveries).finally(() => this.admissions.delete(admission));
        this.admissions.add(admission);
        if (this.admissions.size >= MAX_ADMISSIONS) await Promise.race(this.admissions);
        // Let timers and I/O in: with a synchronous driver (better-sqlite3) every await above
        // resolves as a microtask, and a busy loop would starve renewals and outcome writes. The
        // turn is taken after the next read is asked for, and that read waits for this batch's
        // hand-over and its handlers' synchronous start (every microtask done, hence the tick)
        // unless the hand-over needs I/O (a read of job rows): the handlers start before the
        // read's command is encoded, and the read is on the wire before the turn.
        turn = new Promise<void>((resolve) => setImmediate(resolve));
        await Promise.race([this.admitted.then(afterMicrotasks), turn]);
      }
    } finally {
      await Promise.allSettled(this.admissions);
      this.readiness.loop(false);
    }
  }

  private async admit(deliveries: D[]): Promise<void> {
    // Admissions overlap (each waits on its own read of job rows, on its own connection) but hand
    // their attempts over in read order: a later batch whose read came back first must not start
    // ahead of an earlier one (a higher-priority job read first would lose its place).
    const previous = this.admitted;
    let handOff!: () => void;
    this.admitted = new Promise<void>((resolve) => (handOff = resolve));
    let pending = deliveries.length;
    try {
      const { attempts, transport } = await admitBatch(this.opts.admission, deliveries);
      await this.opts.hooks.awaitTurn(previous);
      this.readiness.readSucceeded();
      this.opts.runner.launch(attempts);
      pending -= attempts.length;
      // The next batch may start now: this one's acks and releases only bound the prefetch.
      handOff();
      await transport;
    } catch (error) {
      void previous.then(handOff);
      this.readFailed(error);
      // With an outbox, a failed outbox write here requeues at once (never a lost delivery).
      await releaseAfterDelay(this.opts.admission, deliveries, 1000).catch((e: unknown) =>
        this.opts.logger.error('release after a failed admission failed', { error: e }),
      );
    } finally {
      this.opts.holdings.notComing(pending);
    }
  }

  private readFailed(error: unknown): void {
    this.opts.counters.readFailures++;
    this.readiness.readFailed();
    // At most one line a second: an outage (or a lost consumer group) must not flood the log.
    if (Date.now() - this.lastReadWarning < 1000) {
      this.quietReadFailures++;
      return;
    }
    this.lastReadWarning = Date.now();
    this.opts.logger.warn('read failed', {
      error,
      consecutive: this.readiness.consecutiveFailures,
      ...(this.quietReadFailures > 0 ? { notLogged: this.quietReadFailures } : {}),
    });
    this.quietReadFailures = 0;
  }
}
