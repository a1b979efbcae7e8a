// One gateway run (rows 6–8), parent side: a fresh database with an API key (and, for the
// watcher row, N queued jobs), a blob directory, and the gateway child. `dispose` stops the child
// and removes everything the run created.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey } from '@sluice/storage';
import type { BenchServices } from '../adapter.js';
import type { GatewayStartArgs } from '../services/gateway-service.js';
import { BENCH_TENANT } from './bench-job.js';
import { fillQueued } from './bulk-fill.js';
import { freshHost, host } from './hosts.js';
import { prepareRunDatabase, type RunDatabase, type Storage } from './sluice-db.js';

export interface RunningGateway {
  url: string;
  /** The gateway host process (its CPU and RSS are the gateway's). */
  pid: number;
  call<T = unknown>(method: string, args?: unknown): Promise<T>;
}

export interface GatewayRun {
  gateway: RunningGateway;
  apiKey: string;
  /** What another process passes to `openDatabase` to reach the run's database. */
  dbUrl: string;
  /** Queued jobs created for watchers (empty unless asked). */
  jobIds: string[];
  /** The parent's database handle; closed already on SQLite (one handle per process). */
  db: RunDatabase;
  dispose(): Promise<void>;
}

export interface GatewayRunOptions {
  maxUploadBytes?: number;
  watchJobs?: number;
  /**
   * Serve from a process of its own instead of the shared host (row 7: RSS growth of a fresh
   * gateway, not of one whose heap earlier runs already grew).
   */
  freshProcess?: boolean;
}

export async function startGatewayRun(
  storage: Storage,
  services: BenchServices,
  opts: GatewayRunOptions = {},
): Promise<GatewayRun> {
  const db = await prepareRunDatabase(storage, services.pg?.url);
  const blobDir = mkdtempSync(join(tmpdir(), 'sluice-bench-blobs-'));
  let started = false;
  let gatewayHost: Awaited<ReturnType<typeof host>> | undefined;
  const dispose = async () => {
    if (opts.freshProcess) await gatewayHost?.stop();
    else if (started) await gatewayHost?.call('stop');
    await db.dispose();
    rmSync(blobDir, { recursive: true, force: true });
  };
  try {
    gatewayHost = await (opts.freshProcess ? freshHost('gateway') : host('gateway'));
    const { key } = await createApiKey(db.database.db, BENCH_TENANT, 'bench');
    const jobIds = opts.watchJobs ? await fillQueued(db, opts.watchJobs) : [];
    if (storage === 'sqlite') await db.close();
    const args: GatewayStartArgs = {
      url: db.url,
      blobDir,
      maxUploadBytes: opts.maxUploadBytes ?? 1024 * 1024,
      // Diagnostics only: what the SQLite tailer's poll interval costs row 8 (default: product's).
      ...(process.env.BENCH_EVENT_POLL_MS
        ? { eventPollMs: Number(process.env.BENCH_EVENT_POLL_MS) }
        : {}),
    };
    started = true;
    const { url } = await gatewayHost.call<{ url: string }>('start', args);
    const child = gatewayHost;
    const gateway: RunningGateway = {
      url,
      pid: child.info.pid,
      call: (method, callArgs) => child.call(method, callArgs),
    };
    return { gateway, apiKey: key, dbUrl: db.url, jobIds, db, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
