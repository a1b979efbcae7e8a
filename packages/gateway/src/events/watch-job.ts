// `jobs.watch`: every stored event of one job, in sequence order, with the sequence number as the
// tracked id. Authorize first (another tenant's job fails before any event), subscribe to the
// hub, backfill after `lastEventId` from the database, then tail. Items at or below the last
// sent sequence are skipped; a gap (or a hub resync) is filled from the database. The stream
// ends after a terminal state event. No duplicate, no gap, across any number of reconnects.

import { eventState, isTerminalState, type JobEvent } from '@sluice/contracts';
import { getJob, listEvents, type Db, type JobRow } from '@sluice/storage/portable';
import { tracked, type TrackedEnvelope } from '@trpc/server';
import { fail } from '../trpc/errors.js';
import type { EventHub } from './event-hub.js';
import { createSubscriberQueue, RESYNC, STOP } from './subscriber-queue.js';

export interface WatchDeps {
  db: Db;
  hub: EventHub;
  /** Events buffered per watcher before it falls back to reading the database (default 1000). */
  bufferSize?: number;
}

const PAGE = 500;

/** The sequence number in a `lastEventId` (0 when absent). */
export function parseLastEventId(value: string | null | undefined): number {
  if (value === null || value === undefined || value === '') return 0;
  if (!/^[0-9]{1,15}$/.test(value)) fail('BAD_REQUEST', 'lastEventId must be a sequence number');
  return Number(value);
}

function endsStream(event: JobEvent): boolean {
  const state = eventState(event);
  return state !== undefined && isTerminalState(state);
}

/**
 * Authorizes before the subscription starts: another tenant's job, or a missing one, fails the
 * call itself (the client never sees `started`, let alone an event).
 */
export async function openJobWatch(
  deps: WatchDeps,
  tenantId: string,
  input: { id: string; lastEventId?: string | null | undefined },
  signal: AbortSignal | undefined,
): Promise<AsyncGenerator<TrackedEnvelope<JobEvent>, void, unknown>> {
  const after = parseLastEventId(input.lastEventId);
  const job = await getJob(deps.db, tenantId, input.id);
  if (!job) fail('NOT_FOUND', 'job not found');
  return watchJob(deps, job, after, signal);
}

async function* watchJob(
  deps: WatchDeps,
  job: JobRow,
  after: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<TrackedEnvelope<JobEvent>, void, unknown> {
  let last = after;
  // A client that already saw the end of a job that has not moved since gets nothing more.
  if (isTerminalState(job.state) && last >= job.lastSeq) return;

  const queue = createSubscriberQueue<JobEvent>({
    max: deps.bufferSize ?? 1000,
    onOverflow: 'resync',
    signal,
  });
  const unsubscribe = deps.hub.subscribeJob(job.id, {
    onEvent: (stored) => queue.push(stored.event),
    onResync: () => queue.resync(),
  });
  try {
    let backfill = true;
    for (;;) {
      if (backfill) {
        backfill = false;
        for (;;) {
          const events = await listEvents(deps.db, job.id, last, PAGE);
          for (const event of events) {
            if (event.seq <= last) continue;
            yield tracked(String(event.seq), event);
            last = event.seq;
            if (endsStream(event)) return;
          }
          if (events.length < PAGE || signal?.aborted) break;
        }
      }
      const item = await queue.next();
      if (item === STOP) return;
      if (item === RESYNC) {
        backfill = true;
        continue;
      }
      if (item.seq <= last) continue;
      if (item.seq > last + 1) {
        backfill = true;
        continue;
      }
      yield tracked(String(item.seq), item);
      last = item.seq;
      if (endsStream(item)) return;
    }
  } finally {
    unsubscribe();
    queue.close();
  }
}
