// HTTP requests in flight per API key (`limits.requestsPerKey`): the HTTP counterpart of the
// sockets-per-key cap, so one key cannot hold every connection the gateway serves. A request
// takes its key's slot once, when it is first admitted (a tRPC batch of 50 calls is one request,
// one slot), and gives it back when its answer is sent — for a streamed download, when the last
// byte has gone or the client went away. Open SSE streams are counted as subscriptions instead.
//
//   app.use('*', slots.middleware);                    // before every route
//   const held = slots.hold(c.req.raw, principal.keyId); // in the admit step
//   if (held) throw held;                              // RATE_LIMITED

import { SluiceError } from '@sluice/contracts';
import type { MiddlewareHandler } from 'hono';

interface Slot {
  keyId?: string;
  /** Release when the response body ends, not when the handler returns. */
  untilBodyEnds?: boolean;
}

export interface RequestSlots {
  middleware: MiddlewareHandler;
  /** Takes `keyId`'s slot for this request (once); the RATE_LIMITED error when the key is full. */
  hold(request: Request, keyId: string): SluiceError | undefined;
  /** The download routes' answer is a stream: keep the slot until it is consumed. */
  holdUntilBodyEnds(request: Request): void;
  inFlight(keyId: string): number;
}

export function createRequestSlots(perKey: number): RequestSlots {
  const counts = new Map<string, number>();
  const slots = new WeakMap<Request, Slot>();

  const release = (keyId: string) => {
    const n = (counts.get(keyId) ?? 1) - 1;
    if (n <= 0) counts.delete(keyId);
    else counts.set(keyId, n);
  };

  const middleware: MiddlewareHandler = async (c, next) => {
    const slot: Slot = {};
    slots.set(c.req.raw, slot);
    let handedOff = false;
    try {
      await next();
      const body = c.res.body;
      if (slot.keyId !== undefined && slot.untilBodyEnds && body) {
        const keyId = slot.keyId;
        c.res = new Response(
          releasingAtEnd(body, () => release(keyId)),
          c.res,
        );
        handedOff = true;
      }
    } finally {
      if (slot.keyId !== undefined && !handedOff) release(slot.keyId);
    }
  };

  return {
    middleware,
    hold(request, keyId) {
      const slot = slots.get(request);
      if (!slot || slot.keyId !== undefined) return undefined;
      const n = counts.get(keyId) ?? 0;
      if (n >= perKey) {
        return new SluiceError(
          'RATE_LIMITED',
          `at most ${perKey} requests in flight per API key; retry after 1 s`,
          { details: { retryAfterMs: 1000 } },
        );
      }
      counts.set(keyId, n + 1);
      slot.keyId = keyId;
      return undefined;
    },
    holdUntilBodyEnds(request) {
      const slot = slots.get(request);
      if (slot) slot.untilBodyEnds = true;
    },
    inFlight: (keyId) => counts.get(keyId) ?? 0,
  };
}

/** `body`, calling `done` once when it has been read to the end, failed, or been cancelled. */
function releasingAtEnd(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream {
  let released = false;
  const once = () => {
    if (!released) {
      released = true;
      done();
    }
  };
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          once();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        once();
        controller.error(error);
      }
    },
    async cancel(reason) {
      once();
      await reader.cancel(reason);
    },
  });
}
