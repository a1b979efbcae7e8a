// The tenant feed over the client's WebSocket, for pages whose data changes while open: every
// job event calls `onEvent`, and every (re)open of the socket calls `onReconnect` (the feed carries on live
// after a reconnect but does not replay, so a page re-reads what it shows). No polling.
import type { FeedEvent } from '@sluice/client';
import type { JobRegistry } from '@sluice/contracts/wire';
import { useEffect, useRef } from 'react';
import { useSession } from './session.js';

export type Feed = FeedEvent<JobRegistry>;

export function useFeed(onEvent: (e: Feed) => void, onReconnect?: () => void): void {
  const { client } = useSession();
  const handlers = useRef({ onEvent, onReconnect });
  handlers.current = { onEvent, onReconnect };
  useEffect(() => {
    const abort = new AbortController();
    void (async () => {
      try {
        for await (const e of client.watchAll({ signal: abort.signal })) {
          handlers.current.onEvent(e as Feed);
        }
      } catch {
        // Aborted on unmount, or the key was revoked: the page keeps what it has.
      }
    })();
    // Also on the first open: a page's first read may have raced the feed's subscription, and
    // an event between the two would be lost without this second read.
    const off = client.onReconnect(() => handlers.current.onReconnect?.());
    return () => {
      abort.abort();
      off();
    };
  }, [client]);
}

/** Calls `fn` once, `ms` after the last of a burst of calls (many events, one re-read). */
export function useDebounced(fn: () => void, ms: number): () => void {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => () => clearTimeout(timer.current), []);
  return () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => latest.current(), ms);
  };
}
