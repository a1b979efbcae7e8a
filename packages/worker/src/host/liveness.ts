// Liveness, apart from the lease: this process beats its row about once a second, and on each
// beat reaps, i.e. ends the leases of running jobs whose holder's beat lapsed (storage
// `reapLapsedWorkers`). The read path then claims them at a new epoch as it claims any lapsed
// lease, so a SIGKILLed worker's jobs resume within `deadAfterMs` plus a read, whatever id the
// next process has. The lease stays the bound for a holder that is alive but stuck: its beat goes
// on, only its renewals stop. A runtime whose deliveries sit outside the database (a stream's
// pending list) is told which holders lapsed (`takeOver`), so it hands their deliveries on as well.
// A beat costs two statements whatever the worker holds (three with `takeOver`: who lapsed), and
// the transport is asked nothing until a worker lapsed; rows dead for ten minutes are dropped
// once a minute.

import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import {
  beatLiveness,
  dropLiveness,
  forgetDeadWorkers,
  lapsedWorkers,
  reapLapsedWorkers,
  type SluiceDatabase,
} from '@sluice/storage';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';
import { every, type Periodic } from './periodic.js';

export const DEFAULT_LIVENESS_EVERY_MS = 1000;
export const DEFAULT_DEAD_AFTER_MS = 5000;
/** How often the beat also drops rows dead for ten minutes (they only appear on a crash). */
const FORGET_EVERY_MS = 60_000;

export interface LivenessOptions<D extends Delivery> {
  database: SluiceDatabase;
  consumer: RuntimeConsumer<D>;
  workerId: string;
  /** Beat period (default 1 s). */
  everyMs: number;
  /** A holder whose last beat is this old is dead (default 5 s; longer than `everyMs`). */
  deadAfterMs: number;
  counters: WorkerCounters;
  logger: WorkerLogger;
}

export interface Liveness extends Periodic {
  /** Stops beating and withdraws the row (after a drain: nothing is held any more). */
  withdraw(): Promise<void>;
}

export function startLiveness<D extends Delivery>(opts: LivenessOptions<D>): Liveness {
  const { database, consumer, workerId, logger } = opts;
  let forgotAt = -Infinity;
  const round = async () => {
    // One clock for the round: a holder found dead below was dead for the reap too, so the
    // deliveries handed over find their job's lease already ended (with a later clock, a holder
    // lapsing between the two would be handed over with a live lease, and the delivery put off).
    const now = Date.now();
    await beatLiveness(database.db, workerId, opts.deadAfterMs, now);
    const reaped = await reapLapsedWorkers(database.db, now);
    if (reaped.length > 0) {
      opts.counters.reapedJobs += reaped.length;
      logger.warn('took back the running jobs of workers whose heartbeat lapsed', {
        jobIds: reaped,
      });
    }
    if (now - forgotAt >= FORGET_EVERY_MS) {
      forgotAt = now;
      await forgetDeadWorkers(database.db, now);
    }
    if (!consumer.holders || !consumer.takeOver) return;
    // The database first: almost always nobody died, and then the transport is not asked who
    // holds deliveries (one command per stream on Streams, every beat of every worker).
    const lapsed = await lapsedWorkers(database.db, undefined, now);
    if (lapsed.length === 0) return;
    const holders = new Set(await consumer.holders());
    const dead = lapsed.filter((id) => id !== workerId && holders.has(id));
    if (dead.length > 0) await consumer.takeOver(dead);
  };
  const failed = (error: unknown) => logger.warn('liveness round failed', { error });
  // The first beat at once: a worker that dies in its first second is known dead too.
  void round().catch(failed);
  const timer = every(opts.everyMs, round, failed);
  return {
    stop: () => timer.stop(),
    async withdraw() {
      timer.stop();
      await dropLiveness(database.db, workerId).catch(failed);
    },
  };
}
