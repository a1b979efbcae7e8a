// `jobs.watchAll`: the tenant-wide live feed for admin screens. Live only (no backfill): it
// yields what the hub sees from the moment of subscription, filtered by kind and by state (a
// state-change event passes when its `to` is in `states`; other events pass only when there is
// no state filter).

import { eventState, type FeedItem, type JobState } from '@sluice/contracts';
import type { StoredEvent } from '@sluice/storage/portable';
import type { EventHub } from './event-hub.js';
import { createSubscriberQueue, RESYNC, STOP } from './subscriber-queue.js';

export interface FeedFilter {
  kinds?: readonly string[] | undefined;
  states?: readonly JobState[] | undefined;
}

export function createFeedFilter(filter: FeedFilter): (stored: StoredEvent) => boolean {
  const kinds = filter.kinds?.length ? new Set(filter.kinds) : undefined;
  const states = filter.states?.length ? new Set<string>(filter.states) : undefined;
  return (stored) => {
    if (kinds && !kinds.has(stored.kind)) return false;
    if (!states) return true;
    const to = eventState(stored.event);
    return to !== undefined && states.has(to);
  };
}

export async function* watchTenant(
  hub: EventHub,
  tenantId: string,
  filter: FeedFilter,
  signal: AbortSignal | undefined,
  bufferSize = 1000,
): AsyncGenerator<FeedItem, void, unknown> {
  const matches = createFeedFilter(filter);
  const queue = createSubscriberQueue<FeedItem>({
    max: bufferSize,
    onOverflow: 'drop-oldest',
    signal,
  });
  const unsubscribe = hub.subscribeTenant(tenantId, {
    onEvent: (stored) => {
      if (matches(stored)) queue.push({ kind: stored.kind, event: stored.event });
    },
    onResync: () => {},
  });
  try {
    for (;;) {
      const item = await queue.next();
      if (item === STOP) return;
      if (item === RESYNC) continue;
      yield item;
    }
  } finally {
    unsubscribe();
    queue.close();
  }
}
