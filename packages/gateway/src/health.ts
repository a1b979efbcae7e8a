// Probes and metrics. `/healthz` answers while the process lives; `/readyz` only while the
// database answers `select 1` (and not once shutdown began); `/metrics` is Prometheus text.

import type { SluiceDatabase } from '@sluice/storage';
import type { Hono } from 'hono';
import type { GatewayMetrics } from './metrics.js';
import { renderMetrics } from './metrics.js';

export interface HealthDeps {
  database: SluiceDatabase;
  metrics: GatewayMetrics;
  activeSubscriptions(): number;
  closing(): boolean;
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
    return ok ? c.text('ready') : c.text('database unavailable', 503);
  });
  app.get('/metrics', async (c) => {
    const text = await renderMetrics(deps.database.db, deps.metrics, deps.activeSubscriptions());
    return c.body(text, 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
  });
}
