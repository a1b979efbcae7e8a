// The order rules of useJobs' list: a list read and the live feed race, and the sequence number
// each item carries decides which of the two is newer.
import type { FeedEvent } from '@sluice/client';
import type { JobRegistry, JobState, JobView } from '@sluice/contracts/wire';
import { describe, expect, it } from 'vitest';
import { applyFeedEvent, catchUp, insertItem, mergeList, readOrder } from './jobs-list.js';

const at = '2026-12-06T07:00:00.000Z';

function view(id: string, state: JobState, lastSeq: number | undefined): JobView {
  return {
    id,
    kind: 'demo.echo',
    version: 'v1',
    state,
    attempts: 1,
    maxAttempts: 3,
    reason: null,
    error: null,
    fileIds: [],
    runAt: null,
    priority: 0,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
    ...(lastSeq === undefined ? {} : { lastSeq }),
  };
}

function moved(jobId: string, seq: number, from: JobState, to: JobState): FeedEvent<JobRegistry> {
  return {
    kind: 'demo.echo',
    event: { type: 'state', jobId, seq, at, from, to, attempt: 1 },
  } as FeedEvent<JobRegistry>;
}

function progress(jobId: string, seq: number, data: unknown): FeedEvent<JobRegistry> {
  return {
    kind: 'demo.echo',
    event: { type: 'progress', jobId, seq, at, data },
  } as FeedEvent<JobRegistry>;
}

describe('a list read and the live feed', () => {
  it('a feed event the list read already reflects never moves a job back', () => {
    // Read after the job succeeded (seq 4); the feed delivers its `running` (seq 3) late.
    const items = mergeList([], [view('a', 'succeeded', 4)]);
    const after = applyFeedEvent(items, moved('a', 3, 'queued', 'running'), {});
    expect(after[0]!.view.state).toBe('succeeded');
    expect(after[0]!.lastSeq).toBe(4);
    // A newer event still applies.
    const later = applyFeedEvent(items, moved('a', 5, 'succeeded', 'queued'), {});
    expect(later[0]!.view.state).toBe('queued');
    expect(later[0]!.view.lastSeq).toBe(5);
  });

  it('a list read older than what the feed showed keeps the live item', () => {
    const live = applyFeedEvent(
      mergeList([], [view('a', 'queued', 2)]),
      moved('a', 3, 'queued', 'running'),
      {},
    );
    const reread = mergeList(live, [view('a', 'queued', 2), view('b', 'queued', 2)]);
    expect(reread.find((i) => i.view.id === 'a')!.view.state).toBe('running');
    expect(reread.map((i) => i.view.id).sort()).toEqual(['a', 'b']);
    // A newer read replaces it, keeping the progress seen live.
    const withProgress = applyFeedEvent(reread, progress('a', 4, { done: 1 }), {});
    const newer = mergeList(withProgress, [view('a', 'succeeded', 6)]);
    expect(newer[0]).toMatchObject({ lastSeq: 6, progress: { done: 1 } });
    expect(newer[0]!.view.state).toBe('succeeded');
  });

  it('a job read after its first feed event catches up with the events that came meanwhile', () => {
    const events = [
      moved('c', 2, 'accepted', 'queued'),
      moved('c', 3, 'queued', 'running'),
      progress('c', 4, { done: 1 }),
    ];
    // The read saw seq 3: the queued and running moves are in it, the progress is not.
    const item = catchUp(view('c', 'running', 3), events);
    expect(item).toMatchObject({ lastSeq: 4, progress: { done: 1 } });
    expect(item.view.state).toBe('running');
    // Read before the running move: it is folded in.
    expect(catchUp(view('c', 'queued', 2), events).view.state).toBe('running');
    // An older gateway's view (no lastSeq) cannot be ordered: taken as read.
    expect(catchUp(view('c', 'queued', undefined), events).view.state).toBe('queued');
    // A list read that brought the job first wins.
    const listed = mergeList([], [view('c', 'succeeded', 6)]);
    expect(insertItem(listed, item)[0]!.view.state).toBe('succeeded');
  });

  it('a job that moves out of the filtered states leaves the list', () => {
    const items = mergeList([], [view('a', 'running', 3)]);
    const after = applyFeedEvent(items, moved('a', 4, 'running', 'succeeded'), {
      states: ['running'],
    });
    expect(after).toEqual([]);
  });

  it('a list read answered after a newer one is not applied', () => {
    const reads = readOrder();
    const first = reads.ask();
    const second = reads.ask();
    expect(reads.fresh(second)).toBe(true);
    expect(reads.fresh(first)).toBe(false);
    // In order, each answer applies.
    const third = reads.ask();
    expect(reads.fresh(third)).toBe(true);
  });
});
