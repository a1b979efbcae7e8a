// The embedded runtime's consumer: a lease queue in the job database, behind the narrow
// `EmbeddedQueueStore`. A delivery is a claimed row; its id carries the lease token, so an old
// holder can neither renew nor acknowledge a row another claim took. Reads poll (the queue has
// no push) until the block time, and after a restart this owner's own leases come back first.

import {
  EMBEDDED_CAPABILITIES,
  sleep,
  type RenewOutcome,
  type RuntimeConsumer,
} from '@sluice/contracts';
import type { EmbeddedDelivery, EmbeddedQueueStore } from './types.js';

export { EMBEDDED_CAPABILITIES };

export interface EmbeddedConsumerOptions {
  store: EmbeddedQueueStore;
  /** Pause between empty claims (default 50 ms). */
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
  const pollMs = opts.pollMs ?? 50;
  const blockMs = opts.blockMs ?? 1000;
  const heartbeatEveryMs = opts.heartbeatEveryMs ?? 10_000;
  /** Deliveries handed out and not yet finished, by job id → token. */
  const outstanding = new Map<string, number>();
  // Until a claim that includes our own leases comes back short, leases this owner still holds
  // from before a restart are taken back first. Only while nothing is outstanding: re-claiming a
  // lease we are running would fence our own attempt.
  let recovering = true;
  let heartbeat: NodeJS.Timeout | undefined;
  let closed = false;

  const forget = (deliveries: readonly EmbeddedDelivery[]) => {
    for (const d of deliveries) {
      if (outstanding.get(d.lease.jobId) === d.lease.token) outstanding.delete(d.lease.jobId);
    }
  };

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
        const includeOwn = recovering && outstanding.size === 0;
        const claims = await store.claim(max, { includeOwn });
        if (includeOwn && claims.length < max) recovering = false;
        if (claims.length > 0) {
          return claims.map((c) => {
            outstanding.set(c.pointer.jobId, c.token);
            return {
              id: `${c.pointer.jobId}#${c.token}`,
              pointer: c.pointer,
              transportDeliveries: c.deliveries,
              lease: { jobId: c.pointer.jobId, token: c.token },
            };
          });
        }
        const left = deadline - Date.now();
        if (left <= 0) return [];
        await sleep(Math.min(pollMs, left), signal);
      }
    },

    async renew(deliveries) {
      if (deliveries.length === 0) return [];
      const renewed = await store.renew(deliveries.map((d) => d.lease));
      const outcomes: RenewOutcome[] = deliveries.map((d) =>
        renewed.has(d.lease.jobId) ? 'renewed' : 'lost',
      );
      forget(deliveries.filter((_, i) => outcomes[i] === 'lost'));
      return outcomes;
    },

    async ack(deliveries) {
      if (deliveries.length === 0) return;
      await store.ack(deliveries.map((d) => d.lease));
      forget(deliveries);
    },

    // Forgotten before the commit: `outstanding` only decides when recovery ends, and a rolled
    // back transaction leaves the row leased to us, to expire or be taken back like any other.
    async ackInTransaction(deliveries, tx) {
      if (deliveries.length === 0) return;
      await store.ack(
        deliveries.map((d) => d.lease),
        tx,
      );
      forget(deliveries);
    },

    async release(deliveries, delayMs = 0) {
      if (deliveries.length === 0) return;
      await store.release(
        deliveries.map((d) => d.lease),
        delayMs,
      );
      forget(deliveries);
    },

    // The reason is stored on the job row by the host; the queue row simply goes away.
    async deadLetter(delivery) {
      await store.ack([delivery.lease]);
      forget([delivery]);
    },

    async close() {
      if (closed) return;
      closed = true;
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = undefined;
      await store.unregister();
    },
  };
}
