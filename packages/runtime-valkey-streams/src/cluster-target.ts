// Where the runtime connects: one server (`redis://host:port[/db]`, `rediss://…`) or a Redis/
// Valkey Cluster (`redis+cluster://host:port,host:port`, seed nodes; the client learns the rest
// from CLUSTER SLOTS). One string for both, so REDIS_URL / --redis-url and the config's `url`
// carry a cluster as they carry a single server.
//
// On a cluster every command must keep its keys in one hash slot: keys.ts tags the keys and
// groups batches by slot.

import { SluiceError } from '@sluice/contracts';

export interface ClusterNode {
  readonly host: string;
  readonly port: number;
}

export type RedisTarget =
  | { readonly cluster: false; readonly url: string }
  | {
      readonly cluster: true;
      readonly nodes: readonly ClusterNode[];
      readonly username?: string | undefined;
      readonly password?: string | undefined;
      readonly tls: boolean;
    };

export const CLUSTER_URL = /^rediss?\+cluster:\/\//;

/** `redis://…` | `rediss://…` | `redis+cluster://h:p,h:p` | `rediss+cluster://…`. */
export const REDIS_URL_PATTERN = /^(rediss?:\/\/.|rediss?\+cluster:\/\/[^,\s]+(,[^,\s]+)*$)/;

/** Parses a runtime URL; a malformed cluster node list is a typed error naming `url`. */
export function parseRedisTarget(url: string): RedisTarget {
  if (!CLUSTER_URL.test(url)) return { cluster: false, url };
  const bad = (why: string) =>
    new SluiceError('INVALID_CONFIG', `url: invalid cluster URL "${url}": ${why}`);
  const tls = url.startsWith('rediss+');
  let rest = url.replace(CLUSTER_URL, '');
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const auth = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = auth.indexOf(':');
    username = decodeURIComponent(colon >= 0 ? auth.slice(0, colon) : '') || undefined;
    password = decodeURIComponent(colon >= 0 ? auth.slice(colon + 1) : auth) || undefined;
  }
  const nodes = rest
    .replace(/\/$/, '')
    .split(',')
    .map((part) => {
      const m = /^(\[[^\]]+\]|[^:/]+):(\d{1,5})$/.exec(part.trim());
      if (!m) throw bad(`node "${part}" is not host:port`);
      const port = Number(m[2]);
      if (port < 1 || port > 65535) throw bad(`port ${port} out of range`);
      return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port };
    });
  if (nodes.length === 0) throw bad('no nodes');
  return { cluster: true, nodes, username, password, tls };
}

/** A URL one node answers on (the readiness probe's target). */
export function firstNodeUrl(url: string): string {
  const t = parseRedisTarget(url);
  if (!t.cluster) return url;
  const n = t.nodes[0] as ClusterNode;
  const host = n.host.includes(':') ? `[${n.host}]` : n.host;
  return `${t.tls ? 'rediss' : 'redis'}://${host}:${n.port}`;
}
