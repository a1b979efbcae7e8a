// Test cluster: a gateway and workers as separate OS processes (`sluice gateway`, `sluice worker`)
// on one database and blob folder, and a typed client in the test process.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSluiceClient, type SluiceClient } from '@sluice/client';
import { freePort, spawnNode, type ChildHandle } from '@sluice/testkit';
import WebSocket from 'ws';
import type { jobs } from './fixtures/e2e-jobs.js';

const MAIN = fileURLToPath(new URL('../src/run.ts', import.meta.url));
const CONFIG = fileURLToPath(new URL('./fixtures/e2e.config.ts', import.meta.url));

export interface Cluster {
  url: string;
  env: Record<string, string>;
  gateway: ChildHandle;
  workers: ChildHandle[];
  startGateway(): Promise<ChildHandle>;
  startWorker(extraEnv?: Record<string, string>): Promise<ChildHandle>;
  client(apiKey: string): SluiceClient<typeof jobs>;
  close(): Promise<void>;
}

export async function startCluster(
  databaseUrl: string,
  opts: { workers?: number; leaseMs?: number; redisUrl?: string | undefined } = {},
): Promise<Cluster> {
  const port = await freePort();
  const env = {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    SLUICE_BLOBS_DIR: mkdtempSync(join(tmpdir(), 'sluice-e2e-blobs-')),
    SLUICE_LEASE_MS: String(opts.leaseMs ?? 1500),
    ...(opts.redisUrl ? { SLUICE_RUNTIME: 'valkey-streams', REDIS_URL: opts.redisUrl } : {}),
  };
  const clients: SluiceClient<typeof jobs>[] = [];
  const cluster: Cluster = {
    url: `http://127.0.0.1:${port}`,
    env,
    gateway: undefined as unknown as ChildHandle,
    workers: [],
    async startGateway() {
      cluster.gateway = await spawnNode(MAIN, {
        args: ['gateway', '--config', CONFIG],
        env,
        readyLine: /gateway listening on/,
        readyTimeoutMs: 60_000,
      });
      return cluster.gateway;
    },
    async startWorker(extraEnv = {}) {
      const w = await spawnNode(MAIN, {
        args: ['worker', '--config', CONFIG],
        env: { ...env, ...extraEnv },
        readyLine: /sluice worker:/,
        readyTimeoutMs: 60_000,
      });
      cluster.workers.push(w);
      return w;
    },
    client(apiKey) {
      const c = createSluiceClient<typeof jobs>({
        url: cluster.url,
        apiKey,
        WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
        reconnect: { minMs: 50, maxMs: 500 },
      });
      clients.push(c);
      return c;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await Promise.all(
        [cluster.gateway, ...cluster.workers].map((p) => p?.kill().catch(() => {})),
      );
    },
  };
  await Promise.all([
    cluster.startGateway(),
    ...Array.from({ length: opts.workers ?? 1 }, () => cluster.startWorker()),
  ]);
  return cluster;
}
