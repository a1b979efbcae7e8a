// What useJobs holds, and how a list read and the live feed fold into it. Pure, so the order
// rules are tested without a browser. The list and the feed race: a list read returns each job
// as of its read, while the feed delivers events in commit order, some of them committed before
// that read (the feed is subscribed first, so nothing after the read is missed). Every item
// therefore carries the sequence number its view already holds, and a feed event at or below it
// is a late copy of what the view shows: applying it would move the job back to an older state.

import type { FeedEvent } from '@sluice/client';
import type { JobRegistry, JobState, JobView } from '@sluice/contracts/wire';

export interface JobsFilter<K extends string = string> {
  kind?: K | undefined;
  /** Only jobs in these states (a job that leaves them leaves the list). */
  states?: readonly JobState[] | undefined;
  /** How many of the newest jobs are listed (default 50, at most 100). */
  limit?: number | undefined;
}

export interface Item {
  readonly view: JobView;
  /** The newest progress report seen live (undefined until one arrives). */
  readonly progress: unknown;
  /** The highest event sequence number the view reflects (read or seen live). */
  readonly lastSeq: number;
}

type Feed = FeedEvent<JobRegistry>;

export function matches(view: JobView, filter: JobsFilter): boolean {
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

/** A view as an item: a gateway that sends no `lastSeq` leaves 0 (every event applies). */
export function itemOf(view: JobView, progress: unknown = undefined): Item {
  return { view, progress, lastSeq: view.lastSeq ?? 0 };
}

/**
 * A fresh list replaces the views but keeps the live progress already seen; where the feed has
 * already moved a job past what the list read (its item's `lastSeq` is higher), the live item
 * stays: the read is the older of the two.
 */
export function mergeList(previous: readonly Item[], views: readonly JobView[]): Item[] {
  const known = new Map(previous.map((item) => [item.view.id, item]));
  return sortNewestFirst(
    views.map((view) => {
      const old = known.get(view.id);
      const read = itemOf(view, old?.progress);
      return old && old.lastSeq > read.lastSeq ? old : read;
    }),
  );
}

/** One feed event folded into the item of its job (none: unchanged). */
function foldInto(item: Item, feed: Feed): Item | undefined {
  const { event } = feed;
  if (event.seq <= item.lastSeq) return undefined;
  const view: JobView =
    'to' in event
      ? { ...item.view, state: event.to, updatedAt: event.at, reason: event.reason ?? null }
      : item.view;
  return {
    view: { ...view, lastSeq: event.seq },
    progress: event.type === 'progress' ? event.data : item.progress,
    lastSeq: event.seq,
  };
}

export function applyFeedEvent(items: readonly Item[], feed: Feed, filter: JobsFilter): Item[] {
  const i = items.findIndex((item) => item.view.id === feed.event.jobId);
  const item = items[i];
  const next = item && foldInto(item, feed);
  if (!next) return items as Item[];
  const out = [...items];
  if (matches(next.view, filter)) out[i] = next;
  else out.splice(i, 1);
  return out;
}

/**
 * A job the list did not hold, read once after its first feed event, with the feed's events of
 * it since that one folded in (those the read already reflects are skipped by sequence number),
 * so a job added during a burst does not stay at its read state. A view without `lastSeq` (an
 * older gateway) cannot be ordered against them and is taken as read.
 */
export function catchUp(view: JobView, arrivedMeanwhile: readonly Feed[]): Item {
  let item = itemOf(view);
  if (view.lastSeq === undefined) return item;
  for (const feed of arrivedMeanwhile) item = foldInto(item, feed) ?? item;
  return item;
}

/** Adds an item unless its job is listed already (a list read may have brought it first). */
export function insertItem(items: readonly Item[], item: Item): Item[] {
  if (items.some((held) => held.view.id === item.view.id)) return items as Item[];
  return sortNewestFirst([...items, item]);
}

/**
 * Orders answers of reads sent close together (the list at the hook's start and after the feed's
 * start): `ask()` numbers a read, `fresh(n)` says whether its answer is newer than every one
 * applied so far, and records it as applied if so. An older answer applied after a newer one
 * would drop the jobs created between the two reads.
 */
export function readOrder() {
  let asked = 0;
  let applied = 0;
  return {
    ask: () => ++asked,
    fresh(read: number): boolean {
      if (read < applied) return false;
      applied = read;
      return true;
    },
  };
}
