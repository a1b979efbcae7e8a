// The Node gateway's retention sweeper: every `everyMs` (default 5 minutes) it refreshes the
// retention figures and, when this replica gets the lock, runs one pass (run-retention-pass.ts).
// Started by `createGateway` next to the upload and orphan sweepers; passes never overlap on
// one replica, and `close()` ends a pass after the batch it is in.

import { randomToken } from '@sluice/contracts';
import type { BlobStore, SluiceDatabase } from '@sluice/storage';
import type { Registry } from 'prom-client';
import type { GatewayLogger } from '../observability/logger.js';
import { createRetentionMetrics } from './retention-metrics.js';
import {
  runRetentionPass,
  type ResolvedRetention,
  type RetentionPass,
} from './run-retention-pass.js';

export interface RetentionSweeperOptions {
  database: SluiceDatabase;
  blobs: BlobStore;
  retention: ResolvedRetention;
  registry: Registry;
  logger: GatewayLogger;
  /** This replica's lock owner name (default: random). */
  owner?: string | undefined;
}

export interface RetentionSweeper {
  start(): void;
  /** A pass now (when this replica gets the lock) and fresh figures; undefined: no pass ran. */
  sweep(now?: number): Promise<RetentionPass | undefined>;
  /** Stops the timer and waits for a pass in progress (it stops after its current batch). */
  close(): Promise<void>;
}

export function createRetentionSweeper(opts: RetentionSweeperOptions): RetentionSweeper {
  const { database, retention, logger } = opts;
  const owner = opts.owner ?? `gw-${randomToken().slice(0, 12)}`;
  const metrics = createRetentionMetrics(opts.registry, database, retention.policy);
  const everyMs = retention.settings.everyMs ?? 5 * 60_000;
  // An incomplete pass continues after the same pause as between its batches.
  const againAfterMs = retention.settings.pauseMs ?? 200;
  let timer: ReturnType<typeof setInterval> | undefined;
  /** The one pending follow-up of an incomplete pass (never more than one). */
  let again: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<RetentionPass | undefined> | undefined;
  let closing = false;

  async function pass(now?: number): Promise<RetentionPass | undefined> {
    let result: RetentionPass | undefined;
    try {
      result = await runRetentionPass({
        database,
        blobs: opts.blobs,
        retention,
        owner,
        now,
        // A sweep more than one interval behind works without pauses until it is not.
        catchUpAfterMs: everyMs,
        closing: () => closing,
      });
      if (result) {
        metrics.record(result);
        if (result.jobs > 0 || result.blobFailures > 0 || result.auditRows > 0)
          logger.info?.('retention pass', {
            jobs: result.jobs,
            batches: result.batches,
            blobs: result.blobs,
            blobFailures: result.blobFailures,
            complete: result.complete,
            auditRows: result.auditRows,
          });
      }
    } catch (error) {
      metrics.failed();
      throw error;
    } finally {
      await metrics
        .refresh(now)
        .catch((error: unknown) => logger.error('retention figures could not be read', { error }));
    }
    return result;
  }

  function sweep(now?: number): Promise<RetentionPass | undefined> {
    // One pass at a time on this replica: a caller during a pass gets that pass.
    running ??= pass(now).finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    start() {
      // With retention off the timer still refreshes the figures (a pass then removes nothing).
      if (timer) return;
      const tick = () => {
        sweep()
          .then((result) => {
            // A pass that stopped at maxBatches with expired jobs left goes on after a pause,
            // not after a whole interval: at the defaults that interval capped removal at 333 jobs/s
            // (200 batches of 500 per 5 minutes), below what one gateway accepts.
            if (result && !result.complete && !closing && !again) {
              again = setTimeout(() => {
                again = undefined;
                tick();
              }, againAfterMs);
              again.unref();
            }
          })
          .catch((error: unknown) => logger.error('retention pass failed', { error }));
      };
      timer = setInterval(tick, everyMs);
      timer.unref();
      // Figures from the start; the first pass comes with the first tick.
      metrics
        .refresh()
        .catch((error: unknown) => logger.error('retention figures could not be read', { error }));
    },
    sweep,
    async close() {
      closing = true;
      if (timer) clearInterval(timer);
      if (again) clearTimeout(again);
      await running?.catch(() => {});
    },
  };
}
