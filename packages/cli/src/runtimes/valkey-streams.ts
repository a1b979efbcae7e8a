// Valkey Streams: one consumer group per job version on Valkey/Redis; state in the job database.
import { VALKEY_STREAMS_CAPABILITIES } from '@sluice/contracts';
import { createStreamsGatewayRuntime } from '@sluice/gateway';
import { createStreamsRuntime } from '@sluice/worker';
import { redisProbe } from '../redis-probe.js';
import type { SluiceRuntime } from './types.js';

export const valkeyStreamsRuntime: SluiceRuntime<'valkey-streams'> = {
  name: 'valkey-streams',
  capabilities: VALKEY_STREAMS_CAPABILITIES,
  check: (s) => (s.redisUrl ? undefined : 'needs REDIS_URL (--redis-url)'),
  waitsFor: (s) => [redisProbe(s.redisUrl as string, 5_000)],
  gateway(settings, resources) {
    const rt = createStreamsGatewayRuntime({
      redisUrl: settings.redisUrl as string,
      database: resources.database,
      // `streams.fairness` of sluice.config (absent: the gateway's defaults).
      ...(settings.streams.fairness !== undefined && { fairness: settings.streams.fairness }),
    });
    return {
      runtime: rt.dispatcher,
      eventTailer: rt.tailer,
      runtimeProbes: rt.probes,
      close: () => rt.close(),
    };
  },
  worker: {
    kind: 'pull',
    create: (settings) => (ctx) =>
      createStreamsRuntime({
        redisUrl: settings.redisUrl,
        versions: ctx.versions,
        workerId: ctx.workerId,
        leaseMs: ctx.leaseMs,
        onError: ctx.onError,
      }),
  },
};
