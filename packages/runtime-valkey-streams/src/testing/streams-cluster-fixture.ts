// The Streams fixture on a private Redis Cluster (redis-cluster.ts): consumers on
// `redis+cluster://` connections, the gateway's dispatch side (XADD of a pointer) and inspection
// on a cluster client, and the streams of a kind found by SCAN on every master.

import { encodePointer, type MessagePointer } from '@sluice/contracts';
import { Cluster, type Redis } from 'iovalkey';
import { createStreamKeys, priorityBand, type StreamKeys } from '../keys.js';
import type { StreamsConnections } from '../worker/types.js';
import { createValkeyConnections } from '../worker/create-valkey-connections.js';
import { startRedisCluster, type RedisCluster } from './redis-cluster.js';
import { outstandingIn } from './streams-fixture.js';

export interface StreamsClusterFixture {
  readonly cluster: RedisCluster;
  readonly keys: StreamKeys;
  /** A cluster client (the `Redis` command API), for inspection and dispatch. */
  readonly redis: Redis;
  connections(): StreamsConnections;
  dispatch(pointers: readonly MessagePointer[]): Promise<string[]>;
  /** The job streams matching `pattern` on every master. */
  streams(pattern: string): Promise<string[]>;
  outstanding(streams: readonly string[]): Promise<number>;
  dispose(): Promise<void>;
}

export async function createStreamsClusterFixture(): Promise<StreamsClusterFixture> {
  const cluster = await startRedisCluster();
  const keys = createStreamKeys();
  const client = new Cluster(
    cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })),
    { redisOptions: { maxRetriesPerRequest: 1 } },
  );
  client.on('error', () => {});
  const redis = client as unknown as Redis;
  const opened: StreamsConnections[] = [];
  return {
    cluster,
    keys,
    redis,
    connections() {
      const c = createValkeyConnections({ url: cluster.url, commandTimeoutMs: 2000 });
      opened.push(c);
      return c;
    },
    async dispatch(pointers) {
      const ids: string[] = [];
      for (const p of pointers) {
        const stream = keys.jobs(p.kind, p.version, priorityBand(p.priority));
        ids.push((await redis.xadd(stream, '*', ...encodePointer(p))) ?? '');
      }
      return ids;
    },
    async streams(pattern) {
      const found = new Set<string>();
      for (const node of client.nodes('master')) {
        let cursor = '0';
        do {
          const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          for (const k of batch) found.add(k);
          cursor = next;
        } while (cursor !== '0');
      }
      return [...found];
    },
    outstanding: (streams) => outstandingIn(redis, keys, streams),
    async dispose() {
      await Promise.allSettled(opened.map((c) => c.close()));
      client.disconnect();
      await cluster.dispose();
    },
  };
}
