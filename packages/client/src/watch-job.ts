// A job's events as one live, resumable stream. tRPC's WebSocket client already resubscribes with
// the last tracked id when its socket is replaced; this loop covers what it cannot: a
// subscription that ends with an error or without a terminal event (gateway restart, server
// shutdown) is opened again after a backoff, from the last sequence number it yielded. Events at
// or below that number are dropped, so a resume never repeats one.

import {
  API_PATHS,
  eventState,
  isTerminalState,
  type JobEvent,
  type JobState,
} from '@sluice/contracts/wire';
import { backoffDelay, linkSignals, sleep, type ReconnectOptions } from './backoff.js';
import { subscribe } from './subscribe.js';
import { isTransientCode, toApiError } from './to-api-error.js';
import type { Transport } from './transport.js';

export interface StreamDeps {
  transport: Transport;
  /** Aborted by `client.close()`. */
  closed: AbortSignal;
  reconnect: ReconnectOptions | undefined;
}

/**
 * Opens `path` again and again until `consume` says it is finished, the caller aborts, or an
 * error that no retry can fix. Retry delays grow while attempts fail and reset on progress.
 */
async function* resubscribing<T>(
  deps: StreamDeps,
  path: string,
  input: () => unknown,
  callerSignal: AbortSignal | undefined,
  accept: (value: unknown) => { yield: T | undefined; last: boolean },
  onStarted?: () => void,
): AsyncGenerator<T, void, undefined> {
  deps.transport.assertWebSocket();
  const { signal, dispose } = linkSignals([callerSignal, deps.closed]);
  let failures = 0;
  try {
    while (!signal.aborted) {
      try {
        for await (const value of subscribe(
          deps.transport.trpc,
          path,
          input(),
          signal,
          onStarted,
        )) {
          failures = 0;
          const step = accept(value);
          if (step.yield !== undefined) yield step.yield;
          if (step.last) return;
        }
      } catch (error) {
        if (signal.aborted) return;
        const apiError = toApiError(error);
        if (!isTransientCode(apiError.code)) throw apiError;
      }
      await sleep(backoffDelay(failures++, deps.reconnect), signal);
    }
  } finally {
    dispose();
  }
}

export function watchJob(
  deps: StreamDeps,
  id: string,
  options: { signal?: AbortSignal | undefined; after?: number | undefined } = {},
): AsyncGenerator<JobEvent, void, undefined> {
  let last = options.after ?? 0;
  return resubscribing<JobEvent>(
    deps,
    API_PATHS.watch,
    () => (last > 0 ? { id, lastEventId: String(last) } : { id }),
    options.signal,
    (value) => {
      const event = value as JobEvent;
      // A replay after a resume: already yielded.
      if (event.seq <= last) return { yield: undefined, last: false };
      last = event.seq;
      const state = eventState(event);
      return { yield: event, last: state !== undefined && isTerminalState(state) };
    },
  );
}

export interface FeedItemLike {
  kind: string;
  event: JobEvent;
}

/** The tenant-wide live feed; after a reconnect it continues live (it is a feed, not a log). */
export function watchFeed(
  deps: StreamDeps,
  filter: {
    kinds?: string[] | undefined;
    states?: JobState[] | undefined;
    onStarted?: (() => void) | undefined;
  },
  signal: AbortSignal | undefined,
): AsyncGenerator<FeedItemLike, void, undefined> {
  const input = {
    ...(filter.kinds ? { kinds: filter.kinds } : {}),
    ...(filter.states ? { states: filter.states } : {}),
  };
  return resubscribing<FeedItemLike>(
    deps,
    API_PATHS.watchAll,
    () => input,
    signal,
    (value) => ({
      yield: value as FeedItemLike,
      last: false,
    }),
    filter.onStarted,
  );
}
