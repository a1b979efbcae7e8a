// useJobs(filter): the tenant's jobs of a kind (or all), newest first, kept live by the tenant
// feed over the client's WebSocket: state changes and progress reports of listed jobs, and new
// jobs as their first event arrives. No polling: the list is read once when the hook starts and
// once after every reconnect (the feed carries on live after a reconnect, it does not replay).

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

export interface JobsFilter<K extends string = string> {
  kind?: K | undefined;
  /** Only jobs in these states (a job that leaves them leaves the list). */
  states?: readonly JobState[] | undefined;
  /** How many of the newest jobs are listed (default 50, at most 100). */
  limit?: number | undefined;
}

export interface JobListItem<R extends JobRegistry, K extends inferJobKind<R>> {
  readonly view: JobView;
  /** The newest progress report seen live (undefined until one arrives). */
  readonly progress: inferJobProgress<R[K]> | undefined;
  /** The highest event sequence number seen live. */
  readonly lastSeq: number;
}

export interface JobsSnapshot<R extends JobRegistry, K extends inferJobKind<R>> {
  readonly jobs: readonly JobListItem<R, K>[];
  /** True until the first list arrived. */
  readonly loading: boolean;
  /** The last failure of the list or the feed (a revoked key, a gateway that refused). */
  readonly error: Error | undefined;
}

type Item = JobListItem<JobRegistry, string>;

function matches(view: JobView, filter: JobsFilter): boolean {
  return (
    (filter.kind === undefined || view.kind === filter.kind) &&
    (filter.states === undefined || filter.states.includes(view.state))
  );
}

function sortNewestFirst(items: Item[]): Item[] {
  return items.sort((a, b) =>
    a.view.createdAt === b.view.createdAt
      ? b.view.id.localeCompare(a.view.id)
      : b.view.createdAt.localeCompare(a.view.createdAt),
  );
}

/** A fresh list replaces the views but keeps the live progress already seen. */
function mergeList(previous: readonly Item[], views: readonly JobView[]): Item[] {
  const known = new Map(previous.map((item) => [item.view.id, item]));
  return sortNewestFirst(
    views.map((view) => {
      const old = known.get(view.id);
      return { view, progress: old?.progress, lastSeq: old?.lastSeq ?? 0 };
    }),
  );
}

function applyFeedEvent(items: readonly Item[], feed: FeedEvent<JobRegistry>, filter: JobsFilter) {
  const { event } = feed;
  const i = items.findIndex((item) => item.view.id === event.jobId);
  const item = items[i];
  if (!item || event.seq <= item.lastSeq) return items;
  const view: JobView =
    'to' in event
      ? { ...item.view, state: event.to, updatedAt: event.at, reason: event.reason ?? null }
      : item.view;
  const next: Item = {
    view,
    progress: event.type === 'progress' ? event.data : item.progress,
    lastSeq: event.seq,
  };
  const out = [...items];
  if (matches(view, filter)) out[i] = next;
  else out.splice(i, 1);
  return out;
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
    // Ids the list holds or is fetching: a feed event of any other job adds that job.
    const known = new Set<string>();
    const reload = () =>
      listViews(client, filterNow).then((views) => {
        if (stop.signal.aborted) return;
        for (const view of views) known.add(view.id);
        setItems((prev) => mergeList(prev, views));
        setLoading(false);
        setError(undefined);
      }, fail);
    // A job the list does not hold yet: read its view once, then the feed keeps it current.
    const add = (id: string) => {
      known.add(id);
      client.jobs.get(id).then((view) => {
        if (stop.signal.aborted) return;
        if (!matches(view, filterNow)) return void known.delete(id);
        setItems((prev) =>
          prev.some((item) => item.view.id === id)
            ? prev
            : sortNewestFirst([...prev, { view, progress: undefined, lastSeq: 0 }]),
        );
      }, fail);
    };
    const offReconnect = client.onReconnect(() => void reload());
    void (async () => {
      try {
        const kinds = filterNow.kind ? [filterNow.kind] : undefined;
        const states = filterNow.states;
        for await (const feed of client.watchAll({ kinds, signal: stop.signal })) {
          const { event } = feed;
          const to = 'to' in event ? event.to : undefined;
          if (!known.has(event.jobId)) {
            // With a states filter only a move into one of them can add a job: other events
            // of jobs outside the list cost nothing.
            if (!states || (to !== undefined && states.includes(to))) add(event.jobId);
            continue;
          }
          // Leaving the states: forget it, so a later move back in adds it again.
          if (states && to !== undefined && !states.includes(to)) known.delete(event.jobId);
          setItems((prev) => applyFeedEvent(prev, feed, filterNow));
        }
      } catch (e) {
        fail(e);
      }
    })();
    void reload();
    return () => {
      offReconnect();
      stop.abort();
    };
  }, [client, key]);

  return { jobs: items as readonly JobListItem<R, K>[], loading, error };
}
