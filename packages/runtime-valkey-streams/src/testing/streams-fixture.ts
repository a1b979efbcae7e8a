// A private redis-server for Streams tests, the consumers built on it (each with its own
// connections, like separate processes, all closed on dispose), a raw client to inspect what the
// server holds, and the dispatch side the gateway owns in production (XADD of a pointer).

import {
  encodePointer,
  formatJobId,
  type MessagePointer,
  type VersionKey,
} from '@sluice/contracts';
import { createStreamKeys, priorityBand, type StreamKeys } from '../keys.js';
import { parseXPendingSummary } from '../replies.js';
import { startRedisServer, type RedisServer } from '@sluice/testkit';
import { Redis } from 'iovalkey';
import {
  createStreamsRuntime,
  type StreamsRuntimeOptions,
} from '../worker/create-streams-runtime.js';
import type { StreamsConsumer } from '../worker/consumer.js';
import type { StreamsConnections } from '../worker/types.js';
import { createValkeyConnections } from '../worker/create-valkey-connections.js';
import { renewScriptFromEnv } from './renew-script.js';

export interface StreamsFixture {
  readonly server: RedisServer;
  readonly keys: StreamKeys;
  /** A plain client on the server, for inspection and dispatch. */
  readonly redis: Redis;
  connections(url?: string): StreamsConnections;
  consumer(
    opts: Partial<StreamsRuntimeOptions> & { workerId: string; versions: readonly VersionKey[] },
  ): StreamsConsumer;
  /** XADDs pointers to their streams (what the gateway's dispatcher does after its commit). */
  dispatch(pointers: readonly MessagePointer[]): Promise<string[]>;
  /** Pending entries of a stream's group (0 when the group does not exist). */
  pendingCount(stream: string): Promise<number>;
  /** Pending entries plus entries not delivered yet, over the given streams. */
  outstanding(streams: readonly string[]): Promise<number>;
  dispose(): Promise<void>;
}

export function testPointer(kind: string, version = 'v1', tenantId = 'acme'): MessagePointer {
  return { jobId: formatJobId(version), kind, version, tenantId };
}

export async function createStreamsFixture(
  opts: { persistence?: 'none' | 'aof' } = {},
): Promise<StreamsFixture> {
  const server = await startRedisServer({ persistence: opts.persistence ?? 'none' });
  const keys = createStreamKeys();
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
  redis.on('error', () => {});
  const opened: StreamsConnections[] = [];
  const connections = (url = server.url) => {
    const c = createValkeyConnections({ url, commandTimeoutMs: 2000 });
    opened.push(c);
    return c;
  };

  const pendingCount = (stream: string) => pendingIn(redis, keys, stream);

  return {
    server,
    keys,
    redis,
    connections,
    consumer: (o) =>
      createStreamsRuntime({
        renewScript: renewScriptFromEnv(),
        leaseMs: 700,
        blockMs: 100,
        claimEveryMs: 100,
        heartbeatEveryMs: 100,
        servedTtlMs: 1000,
        ...o,
        connections: connections(),
      }),
    async dispatch(pointers) {
      const ids: string[] = [];
      for (const p of pointers) {
        const stream = keys.jobs(p.kind, p.version, priorityBand(p.priority));
        ids.push((await redis.xadd(stream, '*', ...encodePointer(p))) ?? '');
      }
      return ids;
    },
    pendingCount,
    outstanding: (streams) => outstandingIn(redis, keys, streams),
    async dispose() {
      await Promise.allSettled(opened.map((c) => c.close()));
      redis.disconnect();
      await server[Symbol.asyncDispose]();
    },
  };
}

/** Pending entries of a stream's group (0 when the group does not exist). */
export async function pendingIn(redis: Redis, keys: StreamKeys, stream: string): Promise<number> {
  try {
    return parseXPendingSummary(await redis.xpending(stream, keys.group)).count;
  } catch {
    return 0;
  }
}

/**
 * Pending entries plus entries not delivered yet, over the given streams. One key per command,
 * so a cluster client (the same command API) works as well.
 */
export async function outstandingIn(
  redis: Redis,
  keys: StreamKeys,
  streams: readonly string[],
): Promise<number> {
  let total = 0;
  for (const stream of streams) {
    if ((await redis.exists(stream)) === 0) continue;
    const groups = (await redis.xinfo('GROUPS', stream)) as unknown[][];
    const ours = groups.map((g) => Object.fromEntries(chunk(g))).find((g) => g.name === keys.group);
    if (!ours) {
      total += await redis.xlen(stream);
      continue;
    }
    const undelivered = await redis.xrange(stream, `(${String(ours['last-delivered-id'])}`, '+');
    total += undelivered.length + (await pendingIn(redis, keys, stream));
  }
  return total;
}

function chunk(flat: readonly unknown[]): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([String(flat[i]), flat[i + 1]]);
  return out;
}
