// A gateway on the valkey-streams runtime as its own OS process, for the cross-process tests:
// the database at DB_URL, Redis at REDIS_URL, the `xp.work` registry, the reconciler with short
// timings, the bulk runner's batch, pause and lease from BULK_BATCH, BULK_PAUSE_MS, BULK_LEASE_MS
// and BULK_POLL_MS, and the gateway's seeded bug SLUICE_SEEDED_BUG when it names one. Prints
// `READY <url>`; SIGTERM closes it cleanly (the reconciler releases its lock).

import { openDatabase, createLocalBlobStore } from '@sluice/storage';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway } from '@sluice/gateway';
import { UNLIMITED_RATE } from '@sluice/gateway';
import { createStreamsGatewayRuntime } from '../gateway/create-streams-gateway-runtime.js';
import { serve } from '@sluice/gateway';
import { xpJobs } from '@sluice/gateway/conformance';
import { gatewayHooksFromEnv } from '@sluice/gateway/testing';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};
const num = (name: string, fallback: number) => Number(env(name, String(fallback)));
const logger = {
  warn: (msg: string, fields?: Record<string, unknown>) => console.error('WARN', msg, fields ?? ''),
  error: (msg: string, fields?: Record<string, unknown>) =>
    console.error('ERROR', msg, fields ?? ''),
};

const database = openDatabase({ url: env('DB_URL'), poolSize: num('POOL_SIZE', 8) });
const rt = createStreamsGatewayRuntime({
  redisUrl: env('REDIS_URL'),
  database,
  logger,
  reconciler: {
    owner: env('GATEWAY_ID', `gw-${process.pid}`),
    tickMs: num('RECONCILER_TICK_MS', 250),
    lockTtlMs: num('RECONCILER_LOCK_MS', 2000),
    outboxGraceMs: num('OUTBOX_GRACE_MS', 2000),
    sweepEveryMs: num('SWEEP_EVERY_MS', 5000),
    quietMs: num('QUIET_MS', 30_000),
    leasePassedMs: num('LEASE_PASSED_MS', 10_000),
  },
  tailer: { blockMs: 500, watchdogMarginMs: 1000 },
});
const gateway = createGateway({
  jobs: xpJobs,
  database,
  blobs: createLocalBlobStore(mkdtempSync(join(tmpdir(), 'sluice-gw-child-'))),
  runtime: rt.dispatcher,
  eventTailer: rt.tailer,
  runtimeProbes: rt.probes,
  logger,
  servedVersionsCacheMs: 1000,
  hooks: gatewayHooksFromEnv(),
  bulk: {
    batchSize: num('BULK_BATCH', 200),
    pauseMs: num('BULK_PAUSE_MS', 20),
    leaseMs: num('BULK_LEASE_MS', 30_000),
    pollMs: num('BULK_POLL_MS', num('BULK_LEASE_MS', 30_000)),
  },
  // 2,000 submits and watches through one key at once: the load test measures the gateway.
  limits: {
    keyRate: UNLIMITED_RATE,
    tenantRate: UNLIMITED_RATE,
    subscriptionsPerKey: 100_000,
    subscriptionsPerSocket: 100_000,
  },
});
const running = await serve(gateway, { port: 0 });
await gateway.hub.ready();
let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  void (async () => {
    await running.close();
    await rt.close();
    await database.close();
    process.exit(0);
  })();
});
process.stdout.write(`READY ${running.url}\n`);
