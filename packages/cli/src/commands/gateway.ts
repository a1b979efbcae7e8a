import { createGateway, serve, serveMetrics, type RunningGateway } from '@sluice/gateway';
import type { Settings } from '../define-config.js';
import type { Resources } from '../resources.js';

export interface StartedGateway {
  running: RunningGateway;
  close(): Promise<void>;
}

export async function startGateway(
  settings: Settings,
  resources: Resources,
): Promise<StartedGateway> {
  // The gateway half of the configured runtime (its dispatcher; a tailer, probes, routes).
  const parts = settings.runtime.gateway({ database: resources.database });
  const gateway = createGateway({
    jobs: settings.jobs,
    database: resources.database,
    blobs: resources.blobs,
    runtime: parts.dispatcher,
    eventTailer: parts.eventTailer,
    runtimeProbes: parts.probes,
    runtimeRoutes: parts.routes,
    auth: { devKey: settings.devApiKey },
    uploads: { maxBytes: settings.uploads.maxBytes, ttlMs: settings.uploads.ttlMs },
    origins: settings.origins,
    rollout: settings.rollout,
    kindLimits: settings.kindLimits,
    limits: settings.limits,
    retention: settings.retention,
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
