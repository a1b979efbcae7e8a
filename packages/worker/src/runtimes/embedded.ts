// The embedded runtime's consumer: the jobs table is the queue, behind the narrow
// `EmbeddedQueueStore`. A claim starts its jobs (`startsOnClaim`): a delivery carries its job
// `running` at a new epoch, held by this worker's lease in the job row, which the host renews
// and fences like any attempt's. Storing an outcome finishes the delivery (`acksWithOutcome`),
// so ack, dead-letter and renew have nothing left to do here. Reads wait on the store (LISTEN on
// PostgreSQL, a file watch on SQLite) with a poll as the fallback; after a restart this owner's
// own running jobs come back first.

import { EMBEDDED_CAPABILITIES, type RenewOutcome, type RuntimeConsumer } from '@sluice/contracts';
import type { EmbeddedDelivery, EmbeddedQueueStore } from './types.js';

export { EMBEDDED_CAPABILITIES };

export interface EmbeddedConsumerOptions {
  store: EmbeddedQueueStore;
  /** Longest wait between claims that found nothing (default 250 ms). */
  pollMs?: number;
  /** Longest a read waits for work before resolving `[]` (default 1 000 ms). */
  blockMs?: number;
  /** Served-versions heartbeat period (default 10 000 ms). */
  heartbeatEveryMs?: number;
  /** Background failures (heartbeats) that no caller awaits. */
  onError?: (error: unknown) => void;
}

export function createEmbeddedConsumer(
  opts: EmbeddedConsumerOptions,
): RuntimeConsumer<EmbeddedDelivery> {
  const { store } = opts;
  const pollMs = opts.pollMs ?? 250;
  const blockMs = opts.blockMs ?? 1000;
  const heartbeatEveryMs = opts.heartbeatEveryMs ?? 10_000;
  // Until a claim that includes our own running jobs takes fewer running rows than it asked for
  // (so none of ours was left behind), those are taken back first: rows this worker id holds
  // that this process did not hand out (re-claiming a job we run would fence our own attempt)
  // are a previous incarnation's. Only the running rows count: a claim filled with queued rows
  // (a backlog) ends the recovery too, else every claim of a drain paid for the recovery's scan
  // of the running rows and an exclude list of every job handed out so far.
  let recovering = true;
  const handedOut = new Set<string>();
  let heartbeat: NodeJS.Timeout | undefined;
  let closed = false;

  return {
    name: 'embedded',
    capabilities: EMBEDDED_CAPABILITIES,

    async init() {
      closed = false;
      await store.heartbeat();
      if (!heartbeat) {
        heartbeat = setInterval(() => {
          store.heartbeat().catch((error: unknown) => opts.onError?.(error));
        }, heartbeatEveryMs);
        heartbeat.unref();
      }
    },

    async read(max, signal) {
      const deadline = Date.now() + blockMs;
      for (;;) {
        if (signal?.aborted || closed || max <= 0) return [];
        const includeOwn = recovering;
        const claims = await store.claim(max, {
          includeOwn,
          exclude: includeOwn ? [...handedOut] : [],
        });
        if (includeOwn && claims.filter((c) => c.from === 'running').length < max) {
          recovering = false;
          handedOut.clear();
        }
        if (claims.length > 0) {
          if (recovering) for (const c of claims) handedOut.add(c.job.id);
          return claims.map((claimed) => {
            const { job } = claimed;
            return {
              id: `${job.id}#${job.epoch}`,
              pointer: {
                jobId: job.id,
                kind: job.kind,
                version: job.version,
                tenantId: job.tenantId,
              },
              transportDeliveries: job.attempts,
              claimed,
              lease: { jobId: job.id, epoch: job.epoch },
            };
          });
        }
        const left = deadline - Date.now();
        if (left <= 0) return [];
        await store.waitForWork(Math.min(pollMs, left), signal);
      }
    },

    // The claim is the lease in the job row: the host extends it and checks it every round.
    renew: async (deliveries) => deliveries.map((): RenewOutcome => 'renewed'),

    async ack() {},

    // Only for jobs that never ran (a read that raced with stop): a stored outcome already put
    // retried jobs back in the queue.
    async release(deliveries, delayMs = 0) {
      if (deliveries.length === 0) return;
      await store.unclaim(
        deliveries.map((d) => d.lease),
        delayMs,
      );
    },

    // The reason is stored on the job row by the host; nothing else holds the job.
    async deadLetter() {},

    async close() {
      if (closed) return;
      closed = true;
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = undefined;
      await store.close?.();
      await store.unregister();
    },
  };
}
