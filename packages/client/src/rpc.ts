// Queries and mutations by path, with every failure turned into a `SluiceApiError` (an aborted
// call rejects with its signal's reason instead, as fetch does).

import { abortReason } from './backoff.js';
import { toApiError } from './to-api-error.js';
import type { Transport } from './transport.js';

export async function query<T>(
  transport: Transport,
  path: string,
  input: unknown,
  signal?: AbortSignal,
): Promise<T> {
  try {
    return (await transport.trpc.query(path, input, signal ? { signal } : undefined)) as T;
  } catch (error) {
    if (signal?.aborted) throw abortReason(signal);
    throw toApiError(error);
  }
}

export async function mutate<T>(
  transport: Transport,
  path: string,
  input: unknown,
  signal?: AbortSignal,
  /** Sent as the request's `traceparent` header (the call then goes unbatched). */
  traceparent?: string,
): Promise<T> {
  try {
    const opts =
      signal || traceparent
        ? { ...(signal ? { signal } : {}), ...(traceparent ? { context: { traceparent } } : {}) }
        : undefined;
    return (await transport.trpc.mutation(path, input, opts)) as T;
  } catch (error) {
    if (signal?.aborted) throw abortReason(signal);
    throw toApiError(error);
  }
}
