// The buffer between the hub (which pushes synchronously) and one subscription generator (which
// pulls). Bounded: a subscriber that falls too far behind either resyncs from the database (a job
// watch, which can backfill) or loses its oldest items (the live feed, which has no history).
// `next()` settles with STOP when the subscription's signal aborts, so a generator parked on it
// returns at once and unsubscribes.

export const RESYNC: unique symbol = Symbol('resync');
export const STOP: unique symbol = Symbol('stop');

export interface SubscriberQueue<T> {
  push(item: T): void;
  resync(): void;
  next(): Promise<T | typeof RESYNC | typeof STOP>;
  close(): void;
}

export function createSubscriberQueue<T>(opts: {
  max: number;
  onOverflow: 'resync' | 'drop-oldest';
  signal?: AbortSignal | undefined;
}): SubscriberQueue<T> {
  let items: (T | typeof RESYNC)[] = [];
  // While a resync is pending, new items are dropped: the backfill it triggers reads them (they
  // are committed before anyone publishes them).
  let resyncPending = false;
  let wake: (() => void) | undefined;
  let stopped = opts.signal?.aborted ?? false;

  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const onAbort = () => {
    stopped = true;
    notify();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  function resync(): void {
    if (stopped || resyncPending) return;
    items.push(RESYNC);
    resyncPending = true;
    notify();
  }

  return {
    push(item) {
      if (stopped || resyncPending) return;
      if (items.length >= opts.max) {
        if (opts.onOverflow === 'resync') {
          items = [];
          resync();
          return;
        }
        items.shift();
      }
      items.push(item);
      notify();
    },
    resync,
    async next() {
      for (;;) {
        if (stopped) return STOP;
        if (items.length > 0) {
          const item = items.shift() as T | typeof RESYNC;
          if (item === RESYNC) resyncPending = false;
          return item;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    close() {
      stopped = true;
      items = [];
      opts.signal?.removeEventListener('abort', onAbort);
      notify();
    },
  };
}
