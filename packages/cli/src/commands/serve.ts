// `sluice dev`, `sluice gateway`, `sluice worker`: start, print where, drain on SIGTERM/SIGINT.

import { randomToken } from '@sluice/contracts';
import type { Settings } from '../define-config.js';
import { openResources } from '../resources.js';
import { startGateway, type StartedGateway } from './gateway.js';
import { startWorker } from './worker.js';

export type ServeMode = 'dev' | 'gateway' | 'worker';

export interface Served {
  gatewayUrl?: string;
  /** The gateway's separate metrics listener (`--metrics-port`), as a URL to fetch. */
  gatewayMetricsUrl?: string;
  workerProbesUrl?: string;
  devApiKey?: string;
  stop(deadlineMs?: number): Promise<void>;
}

/** Where a listener is bound, as given: `0.0.0.0:9090` means every interface. */
function hostPort(l: { host: string; port: number }): string {
  return `${l.host.includes(':') ? `[${l.host}]` : l.host}:${l.port}`;
}

/**
 * The operator UI's path: `sluice dev` serves it at /dashboard unless told `off`; `sluice gateway`
 * only when asked. A dev run from a checkout whose UI was never built goes on without it (said
 * so); an explicit `--dashboard` then fails at start instead.
 */
async function dashboardPath(
  mode: ServeMode,
  setting: string | undefined,
  out: (line: string) => void,
): Promise<string | undefined> {
  if (setting === 'off') return undefined;
  if (setting) return setting;
  if (mode !== 'dev') return undefined;
  const { isDashboardBuilt } = await import('@sluice/dashboard');
  const built = isDashboardBuilt();
  if (!built) out('dashboard: not built (npm run build -w @sluice/dashboard); serving none');
  return built ? '/dashboard' : undefined;
}

export async function runServe(
  mode: ServeMode,
  input: Settings,
  out: (line: string) => void,
): Promise<Served> {
  // `sluice dev` always has a key to try things with: SLUICE_API_KEY, or one made for this run.
  // Only `sluice dev`: in `sluice gateway` the dev key would be a live key that no one can
  // revoke, so it is dropped there (and said so).
  const settings: Settings =
    mode === 'dev'
      ? { ...input, devApiKey: input.devApiKey || `dev_${randomToken()}` }
      : { ...input, devApiKey: undefined };
  if (mode === 'gateway' && input.devApiKey) {
    out(
      'sluice gateway: SLUICE_API_KEY / --api-key is ignored (the dev key exists only in sluice dev)',
    );
  }
  const resources = await openResources(settings, out);
  let gateway: StartedGateway | undefined;
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  try {
    // `sluice dev`: the gateway's /metrics carries the worker's families too (one scrape).
    const workerMetrics =
      mode === 'dev' ? () => worker?.scrapeMetrics() ?? Promise.resolve('') : undefined;
    if (mode !== 'worker')
      gateway = await startGateway(
        settings,
        resources,
        workerMetrics,
        await dashboardPath(mode, settings.dashboard, out),
      );
    // A platform that pushes jobs (Workflows) has no worker process to start in `dev`; `sluice
    // worker` says how to deploy it instead (startWorker).
    const pushes = settings.runtime.worker().kind === 'push';
    if (mode === 'worker' || (mode === 'dev' && !pushes))
      worker = await startWorker(settings, resources);
  } catch (error) {
    await gateway?.close();
    await resources.close();
    throw error;
  }
  const served: Served = {
    ...(gateway ? { gatewayUrl: gateway.running.url } : {}),
    ...(gateway?.metrics ? { gatewayMetricsUrl: `http://127.0.0.1:${gateway.metrics.port}` } : {}),
    ...(worker?.probes ? { workerProbesUrl: worker.probes.url } : {}),
    ...(mode === 'dev' && settings.devApiKey ? { devApiKey: settings.devApiKey } : {}),
    async stop(deadlineMs = 30_000) {
      // Gateway first (no new work), then drain the worker, then the database.
      await gateway?.close();
      await worker?.stop({ deadlineMs });
      await resources.close();
    },
  };
  out(
    `sluice ${mode}: runtime ${settings.runtime.name}, database ${settings.database.startsWith('postgres') ? 'postgres' : settings.database}`,
  );
  if (served.gatewayUrl)
    out(
      `gateway listening on ${served.gatewayUrl} (tRPC /trpc, WebSocket /ws, uploads /v1/uploads)`,
    );
  const half = settings.runtime.worker();
  if (mode === 'dev' && half.kind === 'push') out(`no worker here: ${half.instructions}`);
  if (gateway?.metrics)
    out(`gateway metrics listening on ${hostPort(gateway.metrics)} (/metrics, no key)`);
  else if (gateway) out(`gateway metrics on ${gateway.running.url}/metrics (a metrics:read key)`);
  if (worker?.probes)
    out(
      `worker probes listening on ${hostPort({ host: settings.metricsHost, port: worker.probes.port })} (/healthz /readyz /metrics)`,
    );
  if (gateway?.dashboardUrl) out(`dashboard on ${gateway.dashboardUrl} (sign in with an API key)`);
  if (served.devApiKey) out(`dev API key (tenant "dev"): ${served.devApiKey}`);
  return served;
}
