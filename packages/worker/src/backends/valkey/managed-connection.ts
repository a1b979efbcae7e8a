// One iovalkey connection that can be replaced. After a client-side command timeout (a
// half-open connection: the server never answers) an iovalkey connection stays out of step for
// good, every later reply matched to an older command (testkit README), so it is recreated
// rather than reused. A new connection is waited for briefly; one that was up and dropped fails
// its callers at once (no offline queue): they learn fast that the server is away (readiness
// turns unready within a few reads), and nothing is resent behind their back.

import { createRequire } from 'node:module';
import { requireOptional } from '@sluice/storage';
import type { Redis, RedisOptions } from 'iovalkey';

// iovalkey is an optional peer dependency: loaded only when the Streams runtime connects.
const requirePeer = createRequire(import.meta.url);
const loadRedis = () =>
  requireOptional<{ Redis: typeof Redis }>(requirePeer, 'iovalkey', 'the valkey-streams runtime')
    .Redis;

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
  /** Called with every connection made (a fresh one after each replacement). */
  onConnection?: ((redis: Redis) => void) | undefined;
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

  private make(): Redis {
    const redis = new (loadRedis())(this.opts.url, this.opts.options);
    // Without a listener an 'error' event would crash the process (STACK.md).
    redis.on('error', (error: unknown) => this.opts.onError(error));
    redis.on('ready', () => this.wasReady.add(redis));
    this.opts.onConnection?.(redis);
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

  /** Runs `fn` on a ready connection; a command timeout replaces the connection. */
  async run<T>(fn: (redis: Redis) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the Redis connection is closed');
    const redis = this.redis;
    await whenReady(redis, this.wasReady.has(redis) ? 0 : this.readyWaitMs);
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
