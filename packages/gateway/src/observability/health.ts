// Probes and metrics. `/healthz` answers while the process lives; `/readyz` only while the
// database answers `select 1` and the runtime (if it has probes: its transport's server) is
// reachable, and not once shutdown began; `/metrics` is this gateway's prom-client registry. The
// registry shows every tenant's activity, so on the API port `/metrics` needs a key with the
// `metrics:read` scope (a scraper's key, good for nothing else) or `admin`;
// `metricsAccess: 'listener'` moves it to a separate, private listener instead
// (`serveMetrics`), and off the API port.

import type { SluiceDatabase } from '@sluice/storage';
import { Hono } from 'hono';
import { admitHttp } from '../auth/admit-http.js';
import type { Gatekeeper } from '../auth/gatekeeper.js';
import type { Registry } from 'prom-client';
import type { GatewayMetrics } from './metrics.js';

/** What a runtime adds to the probes (its server reachable, its queue figures). */
export interface RuntimeProbes {
  /** Why the runtime is not ready, or undefined when it is. */
  unready(): Promise<string | undefined>;
  /** Adds the runtime's collectors to the gateway's registry (once, at gateway creation). */
  registerMetrics(registry: Registry): void;
}

export interface HealthDeps {
  database: SluiceDatabase;
  metrics: GatewayMetrics;
  closing(): boolean;
  runtime?: RuntimeProbes | undefined;
  /**
   * Where `/metrics` is served: on the API port behind `metrics:read` or `admin` (default: the
   * value keeps its old name), or not at all here.
   */
  metricsAccess: 'admin' | 'listener';
  /** Appended to `/metrics` (GatewayOptions.extraMetrics). */
  extraMetrics?: (() => Promise<string>) | undefined;
  gate: Gatekeeper;
  /** Bound on the readiness query (default 2000 ms). */
  readyTimeoutMs?: number;
}

/**
 * Whether `check` answers true within `timeoutMs` (false on a rejection or the bound): readiness
 * probes must answer even when their server hangs. Runtimes' probes use it for their transport.
 */
export async function answersWithin(check: Promise<boolean>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([check.catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function databaseAnswers(database: SluiceDatabase, timeoutMs: number): Promise<boolean> {
  // `select 1`, built through the handle so the gateway needs no kysely import of its own.
  const probe = database.db
    .selectNoFrom((eb) => eb.lit(1).as('one'))
    .execute()
    .then(() => true);
  return answersWithin(probe, timeoutMs);
}

export function registerHealth(app: Hono, deps: HealthDeps): void {
  app.get('/healthz', (c) => c.text('ok'));
  app.get('/readyz', async (c) => {
    if (deps.closing()) return c.text('shutting down', 503);
    const ok = await databaseAnswers(deps.database, deps.readyTimeoutMs ?? 2000);
    if (!ok) return c.text('database unavailable', 503);
    const why = await deps.runtime?.unready();
    return why === undefined ? c.text('ready') : c.text(why, 503);
  });
  if (deps.metricsAccess === 'admin') {
    app.get('/metrics', async (c) => {
      const admitted = await admitHttp(
        deps.gate,
        c,
        'metrics:read',
        (code) => deps.metrics.reject(code),
        'metrics',
      );
      if (admitted instanceof Response) return admitted;
      return metricsResponse(deps.metrics, deps.extraMetrics);
    });
  }
}

async function metricsResponse(
  metrics: GatewayMetrics,
  extra: (() => Promise<string>) | undefined,
): Promise<Response> {
  const registry = metrics.registry;
  const own = await registry.metrics();
  const text = extra ? appendFamilies(own, await extra()) : own;
  return new Response(text, { headers: { 'content-type': registry.contentType } });
}

/** `more`'s families that `own` does not declare, after `own` (text format 0.0.4). */
export function appendFamilies(own: string, more: string): string {
  const declared = new Set<string>();
  for (const line of own.split('\n')) {
    const m = /^# TYPE (\S+)/.exec(line);
    if (m?.[1]) declared.add(m[1]);
  }
  let current: string | undefined;
  const kept: string[] = [];
  for (const line of more.split('\n')) {
    const declares = /^# (?:HELP|TYPE) (\S+)/.exec(line);
    if (declares) current = declares[1];
    // Samples of a histogram or summary carry suffixes (_bucket, _sum, _count): they belong to
    // the family of the TYPE line above them.
    if (line === '' || (current !== undefined && declared.has(current))) continue;
    kept.push(line);
  }
  return `${own.replace(/\n*$/, '\n')}${kept.join('\n')}\n`;
}

/** `/metrics` alone, unauthenticated: for a listener only the operator's network reaches. */
export function createMetricsApp(metrics: GatewayMetrics, extra?: () => Promise<string>): Hono {
  const app = new Hono();
  app.get('/metrics', () => metricsResponse(metrics, extra));
  return app;
}
