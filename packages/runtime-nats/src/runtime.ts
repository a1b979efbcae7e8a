// NATS JetStream: a durable pull consumer per (kind, version) on a work-queue stream; state in the
// job database.
//
//   runtime: nats({ url: 'nats://127.0.0.1:4222' })
//
// This module stays light (the `./runtime` subpath): each half imports the NATS client and its
// gateway or worker code when a process starts it.
import { defineRuntime, type RuntimeServiceProbe } from '@sluice/contracts';
import type { GatewayRuntimeHalf, RuntimeResources } from '@sluice/gateway';
import net from 'node:net';
import { z } from 'zod';
import { NATS_CAPABILITIES } from './capabilities.js';

export const NatsOptions = z
  .object({
    /** `nats://host:port`. Env NATS_URL (--nats-url) wins. */
    url: z
      .string()
      .regex(/^nats:\/\/[^/\s]+$/, 'must be nats://host:port')
      .optional(),
    /** Subject and stream prefix (default `sluice`): several deployments can share one server. */
    prefix: z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'lowercase letters, digits, _ and -, at most 32')
      .optional(),
  })
  .strict();
export type NatsOptions = z.input<typeof NatsOptions>;

/** One TCP connect that reads the server's INFO greeting, bounded. */
function natsProbe(url: string, timeoutMs: number): RuntimeServiceProbe {
  const [host = '127.0.0.1', port = '4222'] = url.replace(/^nats:\/\//, '').split(':');
  return {
    label: `NATS at ${host}:${port}`,
    attempt: () =>
      new Promise<void>((resolve, reject) => {
        const socket = net.connect({ host, port: Number(port) });
        socket.setTimeout(timeoutMs, () => {
          socket.destroy();
          reject(new Error(`no answer within ${timeoutMs} ms`));
        });
        socket.once('error', reject);
        socket.once('data', (chunk) => {
          socket.destroy();
          if (chunk.toString().startsWith('INFO')) resolve();
          else reject(new Error('not a NATS server'));
        });
      }),
  };
}

export const nats = defineRuntime({
  name: 'nats',
  options: NatsOptions,
  env: {
    url: { name: 'NATS_URL', flag: '--nats-url <url>', description: 'NATS for the nats runtime' },
  },
  capabilities: () => NATS_CAPABILITIES,
  check: (o) => (o.url ? undefined : 'needs NATS_URL (--nats-url, or url)'),
  services: (o) => [natsProbe(o.url as string, 5_000)],
  async gateway(o, { database }: RuntimeResources): Promise<GatewayRuntimeHalf> {
    const { createNatsGatewayRuntime } = await import('./gateway/create-nats-gateway-runtime.js');
    const rt = createNatsGatewayRuntime({
      url: o.url as string,
      database,
      ...(o.prefix !== undefined && { prefix: o.prefix }),
    });
    return { dispatcher: rt.dispatcher, probes: rt.probes, close: () => rt.close() };
  },
  worker: (o) => ({
    kind: 'pull',
    consumer: async (resources: RuntimeResources) => {
      const { createNatsConsumer } = await import('./worker/create-nats-consumer.js');
      return (ctx) =>
        createNatsConsumer({ url: o.url, prefix: o.prefix, database: resources.database, ...ctx });
    },
  }),
});
