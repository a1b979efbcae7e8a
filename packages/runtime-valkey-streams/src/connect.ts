// One place that turns a runtime URL into an iovalkey client: a `Redis` for one server, a
// `Cluster` for `redis+cluster://…`. Both halves (gateway commands and tailer, worker commands and
// blocking reads) connect through here, so a cluster URL reaches every connection.
//
// A `Cluster` speaks the same command API (`call`, `pipeline`, events, `disconnect`), so callers
// keep the `Redis` type; what differs is stated by `isCluster` and handled by the callers that
// batch across keys (pipelines split per slot) or address a server (CLIENT ID / UNBLOCK, SCAN).

import { createRequire } from 'node:module';
import { requireOptional } from '@sluice/storage';
import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'iovalkey';
import { parseRedisTarget } from './cluster-target.js';

// iovalkey is an optional peer dependency: loaded only when the Streams runtime connects.
const requirePeer = createRequire(import.meta.url);
const load = () =>
  requireOptional<{ Redis: typeof Redis; Cluster: typeof Cluster }>(
    requirePeer,
    'iovalkey',
    'the valkey-streams runtime',
  );

const clusters = new WeakSet<object>();

/** True for a client made from a `redis+cluster://` URL. */
export function isCluster(client: object): boolean {
  return clusters.has(client);
}

/** The master nodes of a cluster client (SCAN must visit each); the client itself otherwise. */
export function masterNodes(client: Redis): Redis[] {
  return isCluster(client) ? (client as unknown as Cluster).nodes('master') : [client];
}

export function connectRedis(url: string, options: RedisOptions): Redis {
  const target = parseRedisTarget(url);
  const lib = load();
  if (!target.cluster) return new lib.Redis(url, options);
  const {
    retryStrategy,
    enableOfflineQueue,
    maxRetriesPerRequest,
    connectionName,
    ...redisOptions
  } = options;
  const clusterOptions: ClusterOptions = {
    // The per-node reconnect pace is the cluster's; a node that is gone for good is replaced
    // by the slot refresh that follows the failover.
    clusterRetryStrategy: (times) => retryStrategy?.(times) ?? Math.min(100 * times, 1000),
    ...(enableOfflineQueue !== undefined && { enableOfflineQueue }),
    // A failover is seconds (cluster-node-timeout plus the election): commands keep retrying
    // the moved or down slot through it at this pace.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 100,
    slotsRefreshTimeout: 2000,
    slotsRefreshInterval: 2000,
    redisOptions: {
      ...redisOptions,
      ...(maxRetriesPerRequest !== undefined && { maxRetriesPerRequest }),
      ...(connectionName !== undefined && { connectionName }),
      ...(target.username !== undefined && { username: target.username }),
      ...(target.password !== undefined && { password: target.password }),
      ...(target.tls && { tls: {} }),
    },
  };
  const cluster = new lib.Cluster(
    target.nodes.map((n) => ({ host: n.host, port: n.port })),
    clusterOptions,
  );
  clusters.add(cluster);
  // Same command surface; the differences are behind `isCluster`.
  return cluster as unknown as Redis;
}
