// Pull requests written by hand (`$JS.API.CONSUMER.MSG.NEXT`), because the client's consumer API
// waits at least a second per fetch and cannot ask "whatever is there now" (`no_wait`). All
// requests of one consumer instance answer on one inbox subscription, so a message that arrives
// after its request stopped waiting (a read aborted on shutdown) is buffered for the next read
// instead of sitting unseen until AckWait.

import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { natsModules } from '../connection.js';

export interface PulledMsg {
  readonly durable: string;
  readonly reply: string;
  readonly data: Uint8Array;
  /** Stream sequence (the message's identity in the stream). */
  readonly seq: number;
  /** How often the server handed it out (from the ack subject). */
  readonly deliveries: number;
  /** When it arrived here: a buffered message's AckWait runs from its delivery. */
  readonly at: number;
}

/**
 * Reads the ack subject: `$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>`,
 * or the newer form with a domain and an account hash before the stream (and a token after).
 */
export function parseAckSubject(
  reply: string,
): { durable: string; deliveries: number; seq: number } | undefined {
  const t = reply.split('.');
  if (t[0] !== '$JS' || t[1] !== 'ACK') return undefined;
  const at = t.length === 9 ? 4 : t.length >= 11 ? 6 : -1;
  if (at < 0) return undefined;
  const deliveries = Number(t[at]);
  const seq = Number(t[at + 1]);
  const durable = t[at - 1] as string;
  return Number.isSafeInteger(seq) && seq > 0 ? { durable, deliveries, seq } : undefined;
}

interface Request {
  readonly durable: string;
  readonly want: number;
  got: number;
  done: (status?: number) => void;
}

export interface Puller {
  /** Messages delivered and not yet handed out, oldest first. */
  take(max: number): PulledMsg[];
  readonly buffered: number;
  /**
   * One pull request for up to `batch` messages of `durable`: `noWait` answers at once with what
   * is there; else the server holds it up to `expiresMs`. Resolves when the request is over
   * (filled, or the server's status) or `signal` aborts the wait, with the status that ended it
   * (503: nobody answers for that consumer, it is gone; 409: deleted or full; 0: none).
   */
  pull(
    stream: string,
    durable: string,
    batch: number,
    wait: { noWait: true } | { expiresMs: number },
    signal?: AbortSignal,
  ): Promise<number>;
  /** Resolves when a message is buffered, or after `ms`. */
  arrival(ms: number, signal?: AbortSignal): Promise<void>;
  close(): PulledMsg[];
}

export function createPuller(nc: NatsConnection, onError: (e: unknown) => void): Puller {
  const { transport } = natsModules();
  const inbox = transport.createInbox();
  const buffer: PulledMsg[] = [];
  const requests = new Map<string, Request>();
  const arrivals = new Set<() => void>();
  let next = 0;

  function onMsg(msg: Msg) {
    const ack = msg.reply ? parseAckSubject(msg.reply) : undefined;
    if (!ack) {
      // A status (404 nothing there, 408 expired, 409 …) comes on the request's own inbox and
      // ends it; a heartbeat (100) does not.
      const code = msg.headers?.code ?? 0;
      if (code !== 100) requests.get(msg.subject.slice(inbox.length + 1))?.done(code);
      return;
    }
    // A message keeps its own subject: it is credited to the oldest open request of its consumer.
    const { durable } = ack;
    buffer.push({ reply: msg.reply as string, data: msg.data, ...ack, at: Date.now() });
    for (const wake of [...arrivals]) wake();
    for (const request of requests.values()) {
      if (request.durable !== durable) continue;
      if (++request.got >= request.want) request.done();
      break;
    }
  }

  const sub: Subscription = nc.subscribe(`${inbox}.*`, {
    callback: (error, msg) => (error ? onError(error) : onMsg(msg)),
  });

  return {
    take: (max) => buffer.splice(0, max),
    get buffered() {
      return buffer.length;
    },

    pull(stream, durable, batch, wait, signal) {
      const token = String(++next);
      const noWait = 'noWait' in wait;
      // The server's own expiry ends a waiting request with a 408; the local timer is a backstop
      // for a status that never comes (a server that went away meanwhile).
      const localMs = noWait ? 2_000 : wait.expiresMs + 1_000;
      return new Promise<number>((resolve) => {
        const done = (status = 0) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', stop);
          requests.delete(token);
          resolve(status);
        };
        const stop = () => done();
        const timer = setTimeout(stop, localMs);
        requests.set(token, { durable, want: batch, got: 0, done });
        signal?.addEventListener('abort', stop, { once: true });
        const body = noWait
          ? { batch, no_wait: true }
          : { batch, expires: Math.max(1, wait.expiresMs) * 1_000_000 };
        try {
          nc.publish(`$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`, JSON.stringify(body), {
            reply: `${inbox}.${token}`,
          });
        } catch (error) {
          done();
          throw error;
        }
      });
    },

    arrival(ms, signal) {
      if (buffer.length > 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          arrivals.delete(wake);
          signal?.removeEventListener('abort', wake);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        arrivals.add(wake);
        signal?.addEventListener('abort', wake, { once: true });
      });
    },

    close() {
      sub.unsubscribe();
      for (const r of [...requests.values()]) r.done();
      return buffer.splice(0);
    },
  };
}
