import { createGateway, serve, serveMetrics, type RunningGateway } from '@sluice/gateway';
import type { Settings } from '../define-config.js';
import type { Resources } from '../resources.js';

export interface StartedGateway {
  running: RunningGateway;
  /** Where the operator UI is served on the gateway, when it is. */
  dashboardUrl: string | undefined;
  /** The separate metrics listener (`--metrics-port`), where it is bound. */
  metrics: { host: string; port: number } | undefined;
  close(): Promise<void>;
}

export async function startGateway(
  settings: Settings,
  resources: Resources,
  /** More Prometheus text for `/metrics` (`sluice dev`: its worker's). */
  extraMetrics?: () => Promise<string>,
  /** The operator UI's mount path; undefined for none. */
  dashboardPath?: string,
): Promise<StartedGateway> {
  // The gateway half of the configured runtime (its dispatcher; a tailer, probes, routes).
  const parts = await settings.runtime.gateway({ database: resources.database });
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
    ...(extraMetrics ? { extraMetrics } : {}),
  });
  // Imported only when asked for: a gateway without the UI loads none of it.
  if (dashboardPath) {
    const { mountDashboard } = await import('@sluice/dashboard');
    mountDashboard(gateway.app, { path: dashboardPath });
  }
  const running = await serve(gateway, { port: settings.port, hostname: settings.hostname });
  const metrics =
    settings.metricsPort === undefined
      ? undefined
      : await serveMetrics(gateway, {
          port: settings.metricsPort,
          hostname: settings.metricsHost,
        }).catch(async (error: unknown) => {
          await running.close();
          throw error;
        });
  return {
    running,
    dashboardUrl: dashboardPath ? `${running.url}${dashboardPath.replace(/\/$/, '')}/` : undefined,
    metrics: metrics && { host: settings.metricsHost, port: metrics.port },
    async close() {
      await metrics?.close();
      await running.close();
      await parts.close();
    },
  };
}
