// One gateway replica of the scale run (tools/soak-scale.ts), as an application starts one on the
// Valkey Streams runtime: `createStreamsGatewayRuntime` (dispatcher, events-stream tailer, fair
// feeder, reconciler with the product's default timings: one replica holds its lock), then
// `createGateway` + `serve` with API-key auth. Only three things differ from the defaults:
//   - retention comes from SOAK_GATEWAY (the run keeps succeeded jobs 10 minutes, not 7 days,
//     and sweeps more often than every 5 minutes: see the tool's header for why);
//   - the per-key and per-tenant rates are unlimited (one key carries the whole open-loop load);
//   - uploads are not swept (the run uploads nothing).
// Forked with IPC; sends `{ type: 'ready', url, pid }`. SIGTERM (or the parent's exit) closes it
// cleanly, so the reconciler releases its lock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RetentionSettingsInput } from '@sluice/contracts';
import { createGateway, serve, UNLIMITED_RATE } from '@sluice/gateway';
import { createStreamsGatewayRuntime } from '@sluice/runtime-valkey-streams';
import { createLocalBlobStore, openDatabase } from '@sluice/storage';
import { benchJobs } from '../sluice/bench-job.js';

interface SoakGatewayConfig {
  redisUrl: string;
  pgUrl: string;
  index: number;
  retention: RetentionSettingsInput;
}

const cfg = JSON.parse(process.env.SOAK_GATEWAY ?? '') as SoakGatewayConfig;
const logger = {
  warn: (msg: string, fields?: Record<string, unknown>) =>
    console.error(`gateway ${cfg.index} WARN`, msg, fields ?? ''),
  error: (msg: string, fields?: Record<string, unknown>) =>
    console.error(`gateway ${cfg.index} ERROR`, msg, fields ?? ''),
};

const blobDir = mkdtempSync(join(tmpdir(), 'sluice-soak-blobs-'));
const database = openDatabase({ url: cfg.pgUrl });
const rt = createStreamsGatewayRuntime({
  redisUrl: cfg.redisUrl,
  database,
  logger,
  reconciler: { owner: `soak-gw-${cfg.index}` },
});
const gateway = createGateway({
  jobs: benchJobs,
  database,
  blobs: createLocalBlobStore(blobDir),
  runtime: rt.dispatcher,
  eventTailer: rt.tailer,
  runtimeProbes: rt.probes,
  logger,
  retention: cfg.retention,
  uploads: { sweepIntervalMs: 0 },
  limits: { keyRate: UNLIMITED_RATE, tenantRate: UNLIMITED_RATE },
});
await gateway.hub.ready();
const running = await serve(gateway, { port: 0 });

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await running.close(); // closes the gateway too (its sweepers, sockets, tailer)
  await rt.close();
  await database.close();
  rmSync(blobDir, { recursive: true, force: true });
  process.disconnect?.();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
process.send?.({ type: 'ready', url: running.url, pid: process.pid });
