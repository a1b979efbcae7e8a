// One iovalkey connection that can be replaced. After a client-side command timeout (a
// half-open connection: the server never answers) an iovalkey connection stays out of step for
// good, every later reply matched to an older command (testkit README), so it is recreated
// rather than reused. A new connection is waited for briefly; one that was up and dropped fails
// its callers at once (no offline queue): they learn fast that the server is away (readiness
// turns unready within a few reads), and nothing is resent behind their back.
//
// Every (re)connection answers a handshake before it carries a command. A connection opened
// while the network drops bytes looks ready (TCP to a proxy or a NAT succeeds) but its first
// commands are lost: once the network heals, each later reply would be matched to an older
// command (a stream read answered with an XAUTOCLAIM reply) until some command timed out, which
// under load took 5–15 s. A handshake that does not answer in time replaces the connection
// instead, so recovery costs at most one wait of `readyWaitMs`.

import type { Redis, RedisOptions } from 'iovalkey';
import { connectRedis } from '../connect.js';

export function isCommandTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Command timed out';
}

/** Resolves when `redis` can take commands; rejects after `ms` or when it gives up. */
export function whenReady(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  if (redis.status === 'end') return Promise.reject(new Error('the Redis connection is closed'));
  if (ms <= 0) return Promise.reject(new Error(`no Redis connection (status ${redis.status})`));
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('end', onEnd);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onEnd = () => done(new Error('the Redis connection is closed'));
    const timer = setTimeout(
      () => done(new Error(`no Redis connection within ${ms} ms (status ${redis.status})`)),
      ms,
    );
    redis.once('ready', onReady);
    redis.once('end', onEnd);
  });
}

export interface ManagedConnectionOptions {
  url: string;
  options: RedisOptions;
  /** How long a command waits for a (re)connection before failing (default 1 000 ms). */
  readyWaitMs?: number | undefined;
  onError: (error: unknown) => void;
  /**
   * Sent on every (re)connection before any command; resolves true when the connection answered
   * as expected (default: `ECHO` of a fresh nonce, compared).
   */
  handshake?: ((redis: Redis) => Promise<boolean>) | undefined;
}

let nonces = 0;
const echoHandshake = async (redis: Redis): Promise<boolean> => {
  const nonce = `sluice-${process.pid}-${++nonces}`;
  return (await redis.call('ECHO', [nonce])) === nonce;
};

/** True when `p` resolves true within `ms` (a rejection or a timeout is false). */
function answeredWithin(p: Promise<boolean> | undefined, ms: number): Promise<boolean> {
  if (!p) return Promise.resolve(false);
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.catch(() => false),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms))),
  ]).finally(() => clearTimeout(timer));
}

export class ManagedConnection {
  private redis: Redis;
  private closed = false;
  readonly readyWaitMs: number;

  constructor(private readonly opts: ManagedConnectionOptions) {
    this.readyWaitMs = opts.readyWaitMs ?? 1000;
    this.redis = this.make();
  }

  private readonly wasReady = new WeakSet<Redis>();
  /** Connections whose current socket answered its handshake: no wait, no timer per command. */
  private readonly verified = new WeakSet<Redis>();
  private readonly handshakes = new WeakMap<Redis, Promise<boolean>>();

  private make(): Redis {
    // `redis+cluster://…` makes a cluster client with the same command API (connect.ts).
    const redis = connectRedis(this.opts.url, this.opts.options);
    const handshake = this.opts.handshake ?? echoHandshake;
    // Without a listener an 'error' event would crash the process (EventEmitter semantics).
    redis.on('error', (error: unknown) => this.opts.onError(error));
    redis.on('ready', () => {
      this.wasReady.add(redis);
      const answered = handshake(redis).catch(() => false);
      this.handshakes.set(redis, answered);
      void answered.then((ok) => {
        if (ok && this.handshakes.get(redis) === answered) this.verified.add(redis);
      });
    });
    // A reconnect of the same client (iovalkey's retry) is a new socket: it shakes hands again.
    redis.on('close', () => {
      this.verified.delete(redis);
      this.handshakes.delete(redis);
    });
    return redis;
  }

  get current(): Redis {
    return this.redis;
  }

  /** Drops the current connection (its commands reject) and opens a fresh one. */
  replace(): void {
    if (this.closed) return;
    const old = this.redis;
    this.redis = this.make();
    old.disconnect();
  }

  /**
   * Runs `fn` on a ready connection that answered its handshake; a command timeout replaces the
   * connection. A handshake unanswered within `readyWaitMs` replaces it once at once (the network
   * may be back); a second silent one fails the call and leaves the pace to the caller's retry.
   */
  async run<T>(fn: (redis: Redis) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw new Error('the Redis connection is closed');
      const redis = this.redis;
      await whenReady(redis, this.wasReady.has(redis) ? 0 : this.readyWaitMs);
      if (
        this.verified.has(redis) ||
        (await answeredWithin(this.handshakes.get(redis), this.readyWaitMs))
      )
        return this.runOn(redis, fn);
      if (redis === this.redis) this.replace();
      if (attempt >= 1) throw new Error('the Redis connection did not answer its handshake');
    }
  }

  private async runOn<T>(redis: Redis, fn: (redis: Redis) => Promise<T>): Promise<T> {
    try {
      return await fn(redis);
    } catch (error) {
      if (isCommandTimeout(error) && redis === this.redis) this.replace();
      throw error;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.redis.disconnect();
  }
}
