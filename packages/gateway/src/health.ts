// Probes and metrics. `/healthz` answers while the process lives; `/readyz` only while the
// database answers `select 1` and the runtime (if it has probes: Redis for Valkey Streams) is
// reachable, and not once shutdown began; `/metrics` is this gateway's prom-client registry.

import type { SluiceDatabase } from '@sluice/storage';
import type { Hono } from 'hono';
import type { Registry } from 'prom-client';
import type { GatewayMetrics } from './metrics.js';

/** What a runtime adds to the probes (Valkey Streams: Redis reachable, stream figures). */
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
  /** Bound on the readiness query (default 2000 ms). */
  readyTimeoutMs?: number;
}

async function databaseAnswers(database: SluiceDatabase, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  // `select 1`, built through the handle so the gateway needs no kysely import of its own.
  const probe = database.db
    .selectNoFrom((eb) => eb.lit(1).as('one'))
    .execute()
    .then(
      () => true,
      () => false,
    );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
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
  app.get('/metrics', async (c) => {
    const registry = deps.metrics.registry;
    return c.body(await registry.metrics(), 200, { 'content-type': registry.contentType });
  });
}
