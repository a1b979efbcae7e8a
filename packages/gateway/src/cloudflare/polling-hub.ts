// The event source of the Workers gateway. A Worker has no process that outlives a request, so
// there is no shared tailer: each subscription (one SSE request) polls D1 itself, inside its own
// request, every `intervalMs`.
//
// - A job watcher is told to `resync` on each tick: jobs.watch then reads the job's events after
//   the last sequence number it sent (watch-job.ts backfill), so it resumes from the client's
//   `lastEventId` and never repeats or skips one.
// - A tenant feed reads the events after the last global event id it has seen (`eventsSince`),
//   starting at the newest id when it subscribes (the feed is live-only, as on Node).
//
// `publish` delivers nothing: an event written by one request reaching a subscriber of another
// would resolve that request's promises from the wrong request context (workerd refuses I/O
// across requests). The subscriber's next poll brings it, at most `intervalMs` later.

import { eventsSince, maxEventId, type Db } from '@sluice/storage/portable';
import type { EventHub, HubSubscriber } from '../events/event-hub.js';

export interface PollingHubOptions {
  /** How often a subscription reads D1 (default 250 ms). */
  intervalMs?: number | undefined;
  /** Events read per tenant-feed poll (default 500). */
  pageSize?: number | undefined;
  onError?: ((error: unknown) => void) | undefined;
}

export function createPollingHub(db: Db, opts: PollingHubOptions = {}): EventHub {
  const intervalMs = opts.intervalMs ?? 250;
  const pageSize = opts.pageSize ?? 500;
  const stops = new Set<() => void>();

  function poll(tick: () => Promise<void> | void): () => void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      Promise.resolve()
        .then(tick)
        .catch((error: unknown) => opts.onError?.(error))
        .finally(() => (running = false));
    }, intervalMs);
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stops.delete(stop);
    };
    stops.add(stop);
    return stop;
  }

  function subscribeTenant(tenantId: string, s: HubSubscriber): () => void {
    let after: number | undefined;
    const started = maxEventId(db).then((id) => (after ??= id));
    started.catch((error: unknown) => opts.onError?.(error));
    return poll(async () => {
      await started;
      for (;;) {
        const events = await eventsSince(db, after ?? 0, pageSize);
        for (const e of events) {
          after = e.id;
          if (e.tenantId === tenantId) s.onEvent(e);
        }
        if (events.length < pageSize) return;
      }
    });
  }

  return {
    subscribeJob: (_jobId, s) => poll(() => s.onResync()),
    subscribeTenant,
    publish() {},
    listenerCount: () => stops.size,
    ready: () => Promise.resolve(),
    async close() {
      for (const stop of [...stops]) stop();
    },
  };
}
