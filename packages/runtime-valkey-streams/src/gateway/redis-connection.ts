// The gateway's two kinds of Valkey/Redis connections. Commands (XADD, ZRANGEBYSCORE, XINFO, PING)
// wait for a reconnect only briefly: a dispatch that fails leaves its outbox row, so failing fast
// beats holding a submit for long. A blocking read gets its own connection with no offline queue
// and no resend of interrupted commands: a blocking command re-sent on reconnect can hang for
// good after a reconnect (seen in the ioredis family of clients, iovalkey's ancestry); the
// tailer's loop retries it instead, under a watchdog.

import type { Redis, RedisOptions } from 'iovalkey';
import { connectRedis } from '../connect.js';

// `redis://…` for one server, `redis+cluster://h:p,…` for a cluster (connect.ts).
function newRedis(url: string, options: RedisOptions): Redis {
  return connectRedis(url, options);
}

export interface ConnectionOptions {
  /** Called for connection errors (iovalkey emits them on every failed reconnect). */
  onError?: (error: unknown) => void;
  /** Longest wait for any command's answer on a command connection (default 3000 ms). */
  commandTimeoutMs?: number;
}

// Reconnect fast at first (a Redis restart takes ~100 ms), then every second.
const retryStrategy = (times: number) => Math.min(50 * 2 ** Math.min(times, 5), 1000);

function attachErrors(redis: Redis, onError?: (error: unknown) => void): Redis {
  // Without a listener iovalkey prints every reconnect failure as an unhandled error.
  let last = 0;
  redis.on('error', (error: unknown) => {
    // At most one report a second: a server that is down fails every reconnect attempt.
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    onError?.(error);
  });
  return redis;
}

export function createCommandConnection(url: string, opts: ConnectionOptions = {}): Redis {
  const options: RedisOptions = {
    maxRetriesPerRequest: 1,
    commandTimeout: opts.commandTimeoutMs ?? 3000,
    retryStrategy,
    connectionName: 'sluice-gateway',
  };
  return attachErrors(newRedis(url, options), opts.onError);
}

export function createBlockingConnection(url: string, opts: ConnectionOptions = {}): Redis {
  const options: RedisOptions = {
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    retryStrategy,
    connectionName: 'sluice-gateway-tail',
  };
  return attachErrors(newRedis(url, options), opts.onError);
}

/** Resolves true once the connection is ready, false after `timeoutMs`. */
export function waitUntilReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}

/** QUIT, or a hard disconnect when the server does not answer. */
export async function closeConnection(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  try {
    if (redis.status === 'ready') {
      await Promise.race([redis.quit(), new Promise((r) => setTimeout(r, 500))]);
    }
  } catch {
    // Closing anyway.
  } finally {
    redis.disconnect();
  }
}
