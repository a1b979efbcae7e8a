// useJobs(filter): the tenant's jobs of a kind (or all), newest first, kept live by the tenant
// feed over the client's WebSocket: state changes and progress reports of listed jobs, and new
// jobs as their first event arrives. No polling: the list is read when the hook starts (so it
// shows even while the feed cannot connect) and again each time the feed's subscription is in
// place on the gateway (its start and every re-start after a dropped socket), so an event
// committed after a read cannot fall between that read and the feed; events a read already
// reflects are skipped by sequence number (jobs-list.ts).

import { useEffect, useState } from 'react';
import type { FeedEvent, SluiceClient } from '@sluice/client';
import type {
  JobRegistry,
  JobState,
  JobView,
  inferJobKind,
  inferJobProgress,
} from '@sluice/contracts/wire';
import { useSluiceClient } from './context.js';
import {
  applyFeedEvent,
  catchUp,
  insertItem,
  matches,
  mergeList,
  readOrder,
  type Item,
  type JobsFilter,
} from './jobs-list.js';

export type { JobsFilter } from './jobs-list.js';

export interface JobListItem<R extends JobRegistry, K extends inferJobKind<R>> {
  readonly view: JobView;
  /** The newest progress report seen live (undefined until one arrives). */
  readonly progress: inferJobProgress<R[K]> | undefined;
  /** The highest event sequence number the view reflects (read or seen live). */
  readonly lastSeq: number;
}

export interface JobsSnapshot<R extends JobRegistry, K extends inferJobKind<R>> {
  readonly jobs: readonly JobListItem<R, K>[];
  /** True until the first list arrived. */
  readonly loading: boolean;
  /** The last failure of the list or the feed (a revoked key, a gateway that refused). */
  readonly error: Error | undefined;
}

async function listViews(client: SluiceClient<JobRegistry>, filter: JobsFilter) {
  const onlyState = filter.states?.length === 1 ? filter.states[0] : undefined;
  const page = await client.jobs.list({
    kind: filter.kind,
    state: onlyState,
    limit: Math.min(filter.limit ?? 50, 100),
  });
  return page.items.filter((view) => matches(view, filter));
}

export function useJobs<R extends JobRegistry, K extends inferJobKind<R> = inferJobKind<R>>(
  filter: JobsFilter<K> = {},
): JobsSnapshot<R, K> {
  const client = useSluiceClient<JobRegistry>();
  const [items, setItems] = useState<readonly Item[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<Error | undefined>(undefined);
  const key = JSON.stringify([filter.kind, filter.states, filter.limit]);

  useEffect(() => {
    const [kind, states, limit] = JSON.parse(key) as [string?, JobState[]?, number?];
    const filterNow: JobsFilter = {
      kind: kind ?? undefined,
      states: states ?? undefined,
      limit: limit ?? undefined,
    };
    const stop = new AbortController();
    const fail = (e: unknown) =>
      !stop.signal.aborted && setError(e instanceof Error ? e : new Error(String(e)));
    // The jobs the list holds, by the sequence number each one's item reflects: a feed event at
    // or below it is a late copy (the same rule as the items, kept here so the loop below can
    // decide without waiting for React's state).
    const known = new Map<string, number>();
    // Jobs being read after their first feed event, with the events that arrived meanwhile.
    const pending = new Map<string, FeedEvent<JobRegistry>[]>();
    // A feed event of a listed job: applied unless the item already reflects it.
    const apply = (feed: FeedEvent<JobRegistry>, seen: number) => {
      const { event } = feed;
      if (event.seq <= seen) return;
      const to = 'to' in event ? event.to : undefined;
      // Leaving the states: forget it, so a later move back in adds it again.
      const states = filterNow.states;
      if (states && to !== undefined && !states.includes(to)) known.delete(event.jobId);
      else known.set(event.jobId, event.seq);
      setItems((prev) => applyFeedEvent(prev, feed, filterNow));
    };
    // Events of a job being read that the list brought meanwhile: they go to its item now.
    const flushPending = (id: string) => {
      const waiting = pending.get(id);
      for (const feed of waiting?.splice(0) ?? []) {
        const seen = known.get(id);
        if (seen !== undefined) apply(feed, seen);
      }
    };
    // The reads at the start and after the feed's start may answer out of order.
    const reads = readOrder();
    const reload = () => {
      const read = reads.ask();
      return listViews(client, filterNow).then((views) => {
        if (stop.signal.aborted || !reads.fresh(read)) return;
        const listed = new Set(views.map((view) => view.id));
        for (const id of known.keys()) if (!listed.has(id)) known.delete(id);
        for (const view of views) {
          known.set(view.id, Math.max(known.get(view.id) ?? 0, view.lastSeq ?? 0));
        }
        setItems((prev) => mergeList(prev, views));
        for (const view of views) flushPending(view.id);
        setLoading(false);
        setError(undefined);
      }, fail);
    };
    // A job the list does not hold: read its view once; the feed keeps it current after that.
    const add = (feed: FeedEvent<JobRegistry>) => {
      const id = feed.event.jobId;
      const meanwhile = [feed];
      pending.set(id, meanwhile);
      client.jobs.get(id).then(
        (view) => {
          if (stop.signal.aborted) return;
          if (known.has(id)) {
            // A list read brought the job while this one was under way: it holds the item.
            flushPending(id);
            pending.delete(id);
            return;
          }
          pending.delete(id);
          const item: Item = catchUp(view, meanwhile);
          if (!matches(item.view, filterNow)) return;
          known.set(id, item.lastSeq);
          setItems((prev) => insertItem(prev, item));
        },
        (e: unknown) => {
          pending.delete(id);
          fail(e);
        },
      );
    };
    void reload();
    void (async () => {
      try {
        const states = filterNow.states;
        const feedEvents = client.watchAll({
          kinds: filterNow.kind ? [filterNow.kind] : undefined,
          signal: stop.signal,
          // Read again once the feed is live, and after every re-start of it (the feed does
          // not replay what a dropped socket missed, nor what came before it started).
          onStarted: () => void reload(),
        });
        for await (const feed of feedEvents) {
          const { event } = feed;
          const seen = known.get(event.jobId);
          if (seen !== undefined) {
            apply(feed, seen);
            continue;
          }
          const waiting = pending.get(event.jobId);
          if (waiting) waiting.push(feed);
          // With a states filter only a move into one of them can add a job: other events
          // of jobs outside the list cost nothing.
          else if (!states || ('to' in event && states.includes(event.to))) add(feed);
        }
      } catch (e) {
        fail(e);
      }
    })();
    return () => {
      stop.abort();
    };
  }, [client, key]);

  return { jobs: items as readonly JobListItem<R, K>[], loading, error };
}
