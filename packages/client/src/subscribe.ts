// One tRPC subscription as an async iterator, with the connection state folded in: tRPC's own
// iterator hides connection errors, so a socket the server refuses (bad API key) would retry
// forever instead of failing. This one ends with that error.

import type { TRPCUntypedClient } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';
import { toApiError } from './to-api-error.js';

type Item = { value: unknown } | { error: unknown } | { done: true };

/** Connection errors that no reconnect can fix. */
const FATAL_CONNECTION_CODES = new Set(['UNAUTHORIZED', 'FORBIDDEN', 'BAD_REQUEST']);

/** Unwraps tRPC's `tracked()` envelope (`{ id, data }`) to the event itself. */
export function unwrapTracked(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && 'id' in value && 'data' in value) {
    const v = value as { id: unknown; data: unknown };
    if (typeof v.id === 'string' && Object.keys(value).length === 2) return v.data;
  }
  return value;
}

export async function* subscribe(
  trpc: TRPCUntypedClient<AnyRouter>,
  path: string,
  input: unknown,
  signal: AbortSignal,
  onStarted?: () => void,
): AsyncGenerator<unknown, void, undefined> {
  const queue: Item[] = [];
  let wake: (() => void) | undefined;
  const push = (item: Item) => {
    queue.push(item);
    wake?.();
    wake = undefined;
  };
  const onAbort = () => push({ done: true });
  signal.addEventListener('abort', onAbort, { once: true });
  const subscription = trpc.subscription(path, input, {
    onData: (value) => push({ value: unwrapTracked(value) }),
    onError: (error) => push({ error }),
    onComplete: () => push({ done: true }),
    // The gateway sends `started` once the procedure's iterator runs, i.e. its listener is on.
    onStarted: () => onStarted?.(),
    onConnectionStateChange: (state) => {
      if (state.error && FATAL_CONNECTION_CODES.has(toApiError(state.error).code)) {
        push({ error: state.error });
      }
    },
  });
  try {
    for (;;) {
      if (signal.aborted) return;
      const item = queue.shift();
      if (!item) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      if ('done' in item) return;
      if ('error' in item) throw item.error;
      yield item.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    subscription.unsubscribe();
  }
}
