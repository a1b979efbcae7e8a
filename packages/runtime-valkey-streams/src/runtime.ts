// Valkey Streams: one consumer group per job stream on Valkey/Redis; state in the job database.
//
//   runtime: valkeyStreams({ url: 'redis://…', fairness: { maxUndelivered: 256 } })
//   runtime: valkeyStreams({ url: 'redis+cluster://10.0.0.1:6379,10.0.0.2:6379' })
//
// This module stays light (the `./runtime` subpath): each half imports its Redis client and
// its gateway or worker code when a process starts it.
import { defineRuntime } from '@sluice/contracts';
import type { GatewayRuntimeHalf, RuntimeResources } from '@sluice/gateway';
import { z } from 'zod';
import { valkeyStreamsCapabilities } from './capabilities.js';
import { redisProbe } from './redis-probe.js';
import { firstNodeUrl, parseRedisTarget, REDIS_URL_PATTERN } from './cluster-target.js';

const Fairness = z
  .object({
    /** Undelivered entries per job stream at most (default 256). */
    maxUndelivered: z.number().int().min(1).max(100_000).optional(),
    /** The fair feeder's period in ms (default 25). */
    feedEveryMs: z.number().int().min(1).max(60_000).optional(),
  })
  .strict();

export const ValkeyStreamsOptions = z
  .object({
    /**
     * `redis://host:port[/db]` for one server, or `redis+cluster://host:port,host:port` (seed
     * nodes of a Redis/Valkey Cluster; `rediss+cluster://` for TLS). Env REDIS_URL
     * (--redis-url) wins.
     */
    url: z
      .string()
      .regex(
        REDIS_URL_PATTERN,
        'must be redis://…, rediss://… or redis+cluster://host:port,host:port',
      )
      .superRefine((url, ctx) => {
        try {
          parseRedisTarget(url);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: (error as Error).message });
        }
      })
      .optional(),
    /**
     * Fairness across tenants, on by default: at most `maxUndelivered` undelivered entries per
     * job stream, the rest wait in the database and the fair feeder (every `feedEveryMs`) hands
     * them out round-robin across tenants. Keep `maxUndelivered` above the workers' total
     * concurrency. `false`: unbounded, arrival order (and `fairAcrossTenants` false).
     */
    fairness: z.union([z.literal(false), Fairness]).optional(),
    /**
     * Submit pointers carry the accepted row so a first delivery starts without reading it
     * (pointer format 2, default true). Set `false` on the gateways during a rolling upgrade from
     * workers that predate it (they refuse the extra fields), and back once every worker is new.
     */
    pointerSnapshots: z.boolean().optional(),
  })
  .strict();
export type ValkeyStreamsOptions = z.input<typeof ValkeyStreamsOptions>;

export const valkeyStreams = defineRuntime({
  name: 'valkey-streams',
  options: ValkeyStreamsOptions,
  env: {
    url: {
      name: 'REDIS_URL',
      flag: '--redis-url <url>',
      description: 'Valkey/Redis for the valkey-streams runtime',
    },
  },
  capabilities: (o) =>
    valkeyStreamsCapabilities(o.fairness !== false, o.pointerSnapshots !== false),
  check: (o) => (o.url ? undefined : 'needs REDIS_URL (--redis-url, or url)'),
  // Each attempt is bounded on its own; the starting process retries within its connect window.
  services: (o) => [redisProbe(firstNodeUrl(o.url as string), 5_000)],
  async gateway(o, { database }: RuntimeResources): Promise<GatewayRuntimeHalf> {
    const { createStreamsGatewayRuntime } =
      await import('./gateway/create-streams-gateway-runtime.js');
    const rt = createStreamsGatewayRuntime({
      redisUrl: o.url as string,
      database,
      ...(o.fairness !== undefined && { fairness: o.fairness }),
      ...(o.pointerSnapshots !== undefined && { pointerSnapshots: o.pointerSnapshots }),
    });
    return {
      dispatcher: rt.dispatcher,
      eventTailer: rt.tailer,
      probes: rt.probes,
      close: () => rt.close(),
    };
  },
  worker: (o) => ({
    kind: 'pull',
    consumer: async (_resources: RuntimeResources) => {
      const { createStreamsRuntime } = await import('./worker/create-streams-runtime.js');
      return (ctx) => createStreamsRuntime({ redisUrl: o.url, ...ctx });
    },
  }),
});
