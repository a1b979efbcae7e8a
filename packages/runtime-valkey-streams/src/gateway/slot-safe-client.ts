// The gateway's command connection on Redis/Valkey Cluster. The gateway batches across streams of
// several kinds (a dispatch's group creations and XADDs, the loss check's EXISTS, the metrics'
// XINFO/XPENDING), and a cluster refuses a pipeline whose keys span slots served apart. Here a
// pipeline records its commands, sends one native pipeline per slot (in parallel), and hands the
// replies back in the order they were queued, so every caller keeps its one-pipeline code. SCAN
// visits every master (each holds only its own slots). On one server the client is used as is.

import type { Redis } from 'iovalkey';
import { groupBySlot } from '../keys.js';
import { isCluster, masterNodes } from '../connect.js';
import type { PipelineReplies, RedisArg, RedisClient, RedisPipeline } from './redis-client.js';

interface Queued {
  readonly method: string;
  readonly args: readonly RedisArg[];
  /** The key that decides the command's slot. */
  readonly key: string;
}

/** Where each queued command's key is: its first argument, or after a subcommand / numkeys. */
function keyOf(method: string, args: readonly RedisArg[]): string {
  if (method === 'xgroup' || method === 'xinfo') return String(args[1]);
  if (method === 'eval') return Number(args[1]) > 0 ? String(args[2]) : '';
  return String(args[0]);
}

class SlotSplittingPipeline {
  private readonly queued: Queued[] = [];

  constructor(private readonly cluster: Redis) {
    const queue =
      (method: string) =>
      (...args: RedisArg[]) => {
        this.queued.push({ method, args, key: keyOf(method, args) });
        return this;
      };
    for (const m of ['get', 'set', 'exists', 'xadd', 'xgroup', 'xlen', 'xpending', 'xinfo'])
      (this as unknown as Record<string, unknown>)[m] = queue(m);
    (this as unknown as Record<string, unknown>).eval = queue('eval');
  }

  async exec(): Promise<PipelineReplies> {
    const out: [Error | null, unknown][] = this.queued.map(() => [null, null]);
    await Promise.all(
      groupBySlot(this.queued, (q) => q.key).map(async (indexes) => {
        const pipe = this.cluster.pipeline() as unknown as Record<
          string,
          (...args: RedisArg[]) => unknown
        > & { exec(): Promise<PipelineReplies> };
        for (const i of indexes) {
          const q = this.queued[i] as Queued;
          (pipe[q.method] as (...args: RedisArg[]) => unknown).apply(pipe, [...q.args]);
        }
        let replies: PipelineReplies;
        try {
          replies = await pipe.exec();
        } catch (error) {
          // One slot's failure (its master failing over) leaves the other slots' replies whole.
          for (const i of indexes) out[i] = [error as Error, null];
          return;
        }
        indexes.forEach((i, k) => {
          out[i] = replies?.[k] ?? [new Error('pipeline was not executed'), null];
        });
      }),
    );
    return out;
  }
}

/** The client the gateway's parts use: slot-safe batches on a cluster, the connection otherwise. */
export function slotSafeClient(redis: Redis): RedisClient {
  if (!isCluster(redis)) return redis as unknown as RedisClient;
  const base = redis as unknown as RedisClient;
  return new Proxy(base, {
    get(target, prop, receiver) {
      if (prop === 'pipeline')
        return () => new SlotSplittingPipeline(redis) as unknown as RedisPipeline;
      if (prop === 'scan') return scanMasters(redis);
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}

/**
 * SCAN over every master, as one cursor: `"<master index>:<its cursor>"` until the last master's
 * scan is done (`"0"`). Each call visits one master's page, like one node's SCAN.
 */
function scanMasters(cluster: Redis): RedisClient['scan'] {
  return async (cursor, match, pattern, count, n) => {
    const masters = masterNodes(cluster);
    const [at, inner] = cursor === '0' ? [0, '0'] : cursor.split(':');
    const index = Number(at);
    const node = masters[index];
    if (!node) return ['0', []];
    const [next, keys] = await node.scan(inner ?? '0', match, pattern, count, n);
    if (next !== '0') return [`${index}:${next}`, keys];
    return [index + 1 < masters.length ? `${index + 1}:0` : '0', keys];
  };
}
