// The gateway's event fan-out. One tailer per gateway learns of events written by any process
// (PostgreSQL LISTEN/NOTIFY, a short poll on SQLite); `publish` delivers the events this process
// wrote itself at once after commit. Both paths meet here and are deduplicated by (job, sequence
// number): events that crossed an events stream carry no global id. So subscribers (job watchers,
// tenant feeds) see each event once and never poll the database.
// When the tailer (re)connects it may have missed events: subscribers are told to `resync`
// (backfill from the database after their last sequence number).

import type { StoredEvent } from '@sluice/storage/portable';

export interface HubSubscriber {
  onEvent(event: StoredEvent): void;
  /** The tailer may have missed events (startup, reconnect): read the gap from the database. */
  onResync(): void;
}

export interface TailerSink {
  deliver(events: StoredEvent[]): void;
  /** Sent after every (re)connect: events in between may have been missed. */
  resync(): void;
  /** True when somebody listens; a tailer may skip reading events nobody wants. */
  wanted(): boolean;
  /** True when this event id was already delivered (a local publish): no need to read it. */
  known(id: number): boolean;
}

export interface EventTailer {
  start(sink: TailerSink): Promise<void>;
  /**
   * Events this process committed, for tailers whose transport does not see database writes (an
   * events stream): handed on to the other replicas. Best effort; watchers backfill gaps.
   */
  relay?(events: readonly StoredEvent[]): void;
  close(): Promise<void>;
}

export interface EventHub {
  subscribeJob(jobId: string, subscriber: HubSubscriber): () => void;
  subscribeTenant(tenantId: string, subscriber: HubSubscriber): () => void;
  /** Events this process committed: delivered now, and skipped when the tailer brings them. */
  publish(events: readonly StoredEvent[]): void;
  /** Subscribers registered now (leak checks, metrics). */
  listenerCount(): number;
  /** Resolves once the tailer runs (its first resync has been sent). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface EventHubOptions {
  /** Events remembered for deduplication (default 20 000). */
  dedupeWindow?: number;
  onError?: (error: unknown) => void;
}

function addTo<K>(map: Map<K, Set<HubSubscriber>>, key: K, s: HubSubscriber): () => void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(s);
  return () => {
    const current = map.get(key);
    if (!current) return;
    current.delete(s);
    if (current.size === 0) map.delete(key);
  };
}

export function createEventHub(
  tailer: EventTailer | undefined,
  opts: EventHubOptions = {},
): EventHub {
  const byJob = new Map<string, Set<HubSubscriber>>();
  const byTenant = new Map<string, Set<HubSubscriber>>();
  const capacity = opts.dedupeWindow ?? 20_000;
  // A FIFO of recently delivered ids: enough to cover the delay between a local publish and the
  // tailer bringing the same event.
  const seen = new Set<string>();
  let order: string[] = [];
  let head = 0;
  let count = 0;

  function remember(key: string): boolean {
    if (seen.has(key)) return false;
    seen.add(key);
    order.push(key);
    if (order.length - head > capacity) seen.delete(order[head++] as string);
    if (head >= capacity) {
      order = order.slice(head);
      head = 0;
    }
    return true;
  }

  function callEach(set: Set<HubSubscriber> | undefined, fn: (s: HubSubscriber) => void): void {
    if (!set) return;
    for (const s of [...set]) {
      try {
        fn(s);
      } catch (error) {
        opts.onError?.(error);
      }
    }
  }

  function deliver(events: readonly StoredEvent[]): void {
    for (const e of events) {
      if (!remember(`${e.event.jobId}#${e.event.seq}`)) continue;
      // Also by global id, for tailers that skip fetching what was published here (`known`).
      if (e.id > 0) remember(`#${e.id}`);
      callEach(byJob.get(e.event.jobId), (s) => s.onEvent(e));
      callEach(byTenant.get(e.tenantId), (s) => s.onEvent(e));
    }
  }

  function resync(): void {
    for (const set of byJob.values()) callEach(set, (s) => s.onResync());
    for (const set of byTenant.values()) callEach(set, (s) => s.onResync());
  }

  const started = tailer
    ? tailer.start({ deliver, resync, wanted: () => count > 0, known: (id) => seen.has(`#${id}`) })
    : Promise.resolve();
  started.catch((error: unknown) => opts.onError?.(error));

  function track(unsubscribe: () => void): () => void {
    count++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      count--;
      unsubscribe();
    };
  }

  return {
    subscribeJob: (jobId, s) => track(addTo(byJob, jobId, s)),
    subscribeTenant: (tenantId, s) => track(addTo(byTenant, tenantId, s)),
    publish(events) {
      deliver(events);
      tailer?.relay?.(events);
    },
    listenerCount: () => count,
    ready: () => started,
    async close() {
      await started.catch(() => {});
      await tailer?.close();
      byJob.clear();
      byTenant.clear();
    },
  };
}
