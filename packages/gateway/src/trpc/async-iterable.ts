// Output validation for subscriptions. tRPC's `.output()` parses what the resolver returns, and a
// subscription returns an async iterable; this schema wraps it so every yielded item is parsed
// (unknown keys stripped) on its way out, as tRPC's docs describe for `zAsyncIterable`.

import { isTrackedEnvelope, tracked, type TrackedEnvelope } from '@trpc/server';
import { z } from 'zod';

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** Each item is `tracked(id, data)`; `data` is parsed with `item`. */
export function zTrackedIterable<S extends z.ZodType>(item: S) {
  return z
    .custom<AsyncIterable<TrackedEnvelope<z.input<S>>>>(isAsyncIterable)
    .transform(async function* (iterable): AsyncGenerator<
      TrackedEnvelope<z.output<S>>,
      void,
      unknown
    > {
      const iterator = iterable[Symbol.asyncIterator]();
      try {
        for (;;) {
          const next = await iterator.next();
          if (next.done) return;
          if (!isTrackedEnvelope(next.value)) throw new Error('subscription item is not tracked');
          const [id, data] = next.value;
          yield tracked(id, item.parse(data) as z.output<S>);
        }
      } finally {
        await iterator.return?.();
      }
    });
}

/** Each item is parsed with `item`. */
export function zIterable<S extends z.ZodType>(item: S) {
  return z
    .custom<AsyncIterable<z.input<S>>>(isAsyncIterable)
    .transform(async function* (iterable): AsyncGenerator<z.output<S>, void, unknown> {
      const iterator = iterable[Symbol.asyncIterator]();
      try {
        for (;;) {
          const next = await iterator.next();
          if (next.done) return;
          yield item.parse(next.value) as z.output<S>;
        }
      } finally {
        await iterator.return?.();
      }
    });
}
