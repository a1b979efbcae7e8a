// useJob(handle | id): one job's live state. It opens the job's event stream once (the client's
// WebSocket subscription, which replays from sequence 1, then goes live) and folds every event
// into a snapshot. No polling: the only queries are the result of a job that stopped, once.
// After a reconnect the client resumes after the last sequence number it yielded; a job parked
// for a person (needs_review, dead_lettered) is watched on from there, so an approval or a
// requeue shows up live too. A final state (succeeded, failed, cancelled, stale) ends it, unless
// the job's stored state has moved on past it (a replay of a job requeued after it failed).

import { useEffect, useReducer } from 'react';
import { isFinalState, type AnyJobDefinition, type inferJobOutput } from '@sluice/contracts/wire';
import type { JobHandle, JobWatchEvent, UntypedJob } from '@sluice/client';
import { useSluiceClient } from './context.js';
import { waitUntilMoved } from './wait-until-moved.js';
import { emptySnapshot, foldEvent, type JobSnapshot } from './job-snapshot.js';

type Action<J extends AnyJobDefinition> =
  | { type: 'reset'; id: string }
  | { type: 'event'; event: JobWatchEvent<J> }
  | { type: 'result'; seq: number; result: inferJobOutput<J> }
  | { type: 'error'; seq: number; error: Error };

function reducer<J extends AnyJobDefinition>(
  snap: JobSnapshot<J>,
  action: Action<J>,
): JobSnapshot<J> {
  switch (action.type) {
    case 'reset':
      return emptySnapshot<J>(action.id);
    case 'event':
      return foldEvent(snap, action.event);
    // A settle answer belongs to the event it followed: a later event (requeue) makes it stale.
    case 'result':
      return action.seq === snap.lastSeq ? { ...snap, result: action.result } : snap;
    case 'error':
      return action.seq === snap.lastSeq ? { ...snap, error: action.error } : snap;
  }
}

const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));

/**
 * The live snapshot of one job: `state`, typed `progress`, `events`, `unitsDone`, the typed
 * `result` once it succeeded, and `error` (JobFailedError, JobNeedsReviewError, … from the client,
 * or the watch's own failure). `null`/`undefined` watches nothing.
 */
export function useJob<J extends AnyJobDefinition = UntypedJob>(
  job: JobHandle<J> | string | null | undefined,
): JobSnapshot<J> {
  const client = useSluiceClient();
  const id = typeof job === 'string' ? job : (job?.id ?? '');
  const [snap, dispatch] = useReducer(reducer<J>, id, (i) => emptySnapshot<J>(i));

  useEffect(() => {
    if (!id) return;
    dispatch({ type: 'reset', id });
    const handle = (typeof job === 'object' && job ? job : client.job(id)) as JobHandle<J>;
    const stop = new AbortController();
    const { signal } = stop;
    void (async () => {
      let after = 0;
      try {
        while (!signal.aborted) {
          let last: JobWatchEvent<J> | undefined;
          for await (const event of handle.watch({ signal, after })) {
            after = event.seq;
            last = event;
            dispatch({ type: 'event', event });
          }
          if (signal.aborted || !last || !('to' in last)) return;
          const seq = after;
          // Stopped (settled or parked): ask once for the typed output or the typed error.
          await handle.result({ signal }).then(
            (result) => dispatch({ type: 'result', seq, result }),
            (error: unknown) =>
              !signal.aborted && dispatch({ type: 'error', seq, error: asError(error) }),
          );
          if (isFinalState(last.to)) {
            // The stream ends at the first final state it meets, also in a replay; an operator
            // may have requeued or rerun the job since (a failed one, too): one read of the
            // stored state says whether to watch on from here.
            const to = last.to;
            const moved = await client.jobs.get(id).then(
              (view) => view.state !== to,
              () => false,
            );
            if (!moved) return;
            continue;
          }
          // Parked: wait (without asking again and again) until a person moves it on.
          await waitUntilMoved(client, id, last.to, signal);
        }
      } catch (error) {
        if (!signal.aborted) dispatch({ type: 'error', seq: after, error: asError(error) });
      }
    })();
    return () => stop.abort();
    // `job` as a handle is identified by its id: a new handle object for the same id is the same job.
  }, [client, id]);

  return snap.id === id ? snap : emptySnapshot<J>(id);
}
