// The host's periodic rounds, each on its own timer (never two rounds of one at once, never
// keeping the process alive): lease renewal of every held attempt (which also carries
// cancellation), the start-limit slots renewed with the leases, the lazy-start tick, the sweep of
// jobs queued on versions nobody serves, and the staging and orphan-asset sweeps.

import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import type { BlobStore, SluiceDatabase } from '@sluice/storage';
import type { ResolvedHandlers } from '../attempt/handler-registry.js';
import { sweepOrphanAssets } from '../assets/orphan-sweeper.js';
import { sweepStaging } from '../assets/staging-sweeper.js';
import type { WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';
import type { AttemptRunner } from './attempt-runner.js';
import type { Holdings } from './holdings.js';
import { every, type Periodic } from './periodic.js';
import type { PublishEvents } from './publish-events.js';
import { renewHeld } from './renew-held.js';
import type { StartGate } from './start-gate.js';
import { sweepUnroutable } from './sweep-unroutable.js';

export interface HostRoundsOptions<D extends Delivery> {
  consumer: RuntimeConsumer<D>;
  database: SluiceDatabase;
  blobs: BlobStore | undefined;
  handlers: ResolvedHandlers;
  /** The attempts to renew. */
  holdings: Holdings<D>;
  /** Whose running attempts the lazy-start tick moves to write-behind. */
  runner: AttemptRunner<D>;
  gate: StartGate | undefined;
  leaseMs: number;
  renewEveryMs: number;
  lazyStartMs: number;
  unroutableGraceMs: number;
  /** 0 turns the unroutable sweep off. */
  sweepEveryMs: number;
  servedVersions: ((kind: string) => Promise<readonly string[]>) | undefined;
  /** 0 turns the staging sweep off (it runs only with `blobs`). */
  stagingSweepEveryMs: number;
  /** Aborted when the host stops: no sweep starts after it. */
  stopped: AbortSignal;
  counters: WorkerCounters;
  logger: WorkerLogger;
  hooks: WorkerHooks;
  publish: PublishEvents;
}

export function startRounds<D extends Delivery>(opts: HostRoundsOptions<D>): Periodic[] {
  const { logger, renewEveryMs, gate, blobs } = opts;
  const failed = (error: unknown) => logger.error('periodic task failed', { error });
  const timers: Periodic[] = [every(renewEveryMs, () => renewRound(opts), failed)];
  // Start-limit slots live 3 renewal periods (create-worker.ts): renewed with the leases.
  if (gate) timers.push(every(renewEveryMs, () => gate.renew(), failed));
  const tickEvery = Math.max(10, Math.min(100, Math.floor(opts.lazyStartMs / 4)));
  timers.push(every(tickEvery, async () => opts.runner.tick(Date.now()), failed));
  if (opts.sweepEveryMs > 0) timers.push(every(opts.sweepEveryMs, () => sweepRound(opts), failed));
  if (blobs && opts.stagingSweepEveryMs > 0) {
    // Staging keys of dead attempts, then final keys whose row never came (ended jobs only).
    const sweep = async () => {
      await sweepStaging({
        database: opts.database,
        blobs,
        logger,
        counters: opts.counters,
        hooks: opts.hooks,
      });
      await sweepOrphanAssets({ database: opts.database, blobs, logger });
    };
    timers.push(every(opts.stagingSweepEveryMs, sweep, failed));
  }
  return timers;
}

async function renewRound<D extends Delivery>(opts: HostRoundsOptions<D>): Promise<void> {
  if (opts.holdings.heldCount === 0) return;
  try {
    await renewHeld(
      {
        database: opts.database,
        consumer: opts.consumer,
        counters: opts.counters,
        logger: opts.logger,
        leaseMs: opts.leaseMs,
        hooks: opts.hooks,
      },
      opts.holdings.held(),
    );
  } catch (error) {
    opts.counters.renewalFailures++;
    opts.logger.error('renewal round failed', { error });
  }
}

async function sweepRound<D extends Delivery>(opts: HostRoundsOptions<D>): Promise<void> {
  if (opts.stopped.aborted) return;
  try {
    const kinds = [...new Set(opts.handlers.versions.map((v) => v.kind))];
    const swept = await sweepUnroutable({
      database: opts.database,
      kinds,
      graceMs: opts.unroutableGraceMs,
      servedVersions: opts.servedVersions,
      onStored: opts.publish,
    });
    opts.counters.sweptUnroutable += swept.length;
    if (swept.length > 0)
      opts.logger.warn('dead-lettered jobs on unserved versions', { jobIds: swept });
  } catch (error) {
    opts.logger.warn('unroutable sweep failed', { error });
  }
}
