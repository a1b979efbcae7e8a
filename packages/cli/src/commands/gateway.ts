import {
  createEmbeddedDispatcher,
  createGateway,
  createStreamsGatewayRuntime,
  serve,
  serveMetrics,
  type GatewayOptions,
  type RunningGateway,
} from '@sluice/gateway';
import type { JobRegistry } from '@sluice/contracts';
import type { Settings } from '../define-config.js';
import type { Resources } from '../resources.js';

export interface StartedGateway {
  running: RunningGateway;
  close(): Promise<void>;
}

type RuntimeParts = Pick<
  GatewayOptions<JobRegistry>,
  'runtime' | 'eventTailer' | 'runtimeProbes'
> & {
  close(): Promise<void>;
};

/** The dispatch half of the configured runtime (and, for Streams, its tailer and reconciler). */
function runtimeFor(settings: Settings, resources: Resources): RuntimeParts {
  switch (settings.runtime) {
    case 'embedded': {
      const runtime = createEmbeddedDispatcher(resources.database);
      return { runtime, close: () => runtime.close() };
    }
    case 'valkey-streams': {
      const rt = createStreamsGatewayRuntime({
        redisUrl: settings.redisUrl as string,
        database: resources.database,
      });
      return {
        runtime: rt.dispatcher,
        eventTailer: rt.tailer,
        runtimeProbes: rt.probes,
        close: () => rt.close(),
      };
    }
  }
}

export async function startGateway(
  settings: Settings,
  resources: Resources,
): Promise<StartedGateway> {
  const parts = runtimeFor(settings, resources);
  const gateway = createGateway({
    jobs: settings.jobs,
    database: resources.database,
    blobs: resources.blobs,
    runtime: parts.runtime,
    ...(parts.eventTailer ? { eventTailer: parts.eventTailer } : {}),
    ...(parts.runtimeProbes ? { runtimeProbes: parts.runtimeProbes } : {}),
    auth: { devKey: settings.devApiKey },
    uploads: { maxBytes: settings.uploads.maxBytes, ttlMs: settings.uploads.ttlMs },
    origins: settings.origins,
    rollout: settings.rollout,
    limits: settings.limits,
    ...(settings.signingSecret ? { downloads: { signingSecret: settings.signingSecret } } : {}),
    metricsAccess: settings.metricsPort === undefined ? 'admin' : 'listener',
  });
  const running = await serve(gateway, { port: settings.port, hostname: settings.hostname });
  const metrics =
    settings.metricsPort === undefined
      ? undefined
      : await serveMetrics(gateway, { port: settings.metricsPort }).catch(
          async (error: unknown) => {
            await running.close();
            throw error;
          },
        );
  return {
    running,
    async close() {
      await metrics?.close();
      await running.close();
      await parts.close();
    },
  };
}
