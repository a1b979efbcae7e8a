// Test fixture: a real gateway on a real socket over a test database (either dialect), a local
// blob folder, API keys for two tenants, and typed tRPC clients over HTTP and WebSocket.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineJob, defineJobs } from '@sluice/contracts';
import { createApiKey, createLocalBlobStore, type BlobStore } from '@sluice/storage';
import type { TestDatabase } from '@sluice/storage/testing';
import {
  createTRPCClient,
  createWSClient,
  httpBatchLink,
  TRPCClientError,
  wsLink,
  type TRPCClient,
} from '@trpc/client';
import WebSocket from 'ws';
import { z } from 'zod';
import { createGateway, type Gateway, type GatewayOptions } from '../create-gateway.js';
import type { AppRouter } from '../routers/index.js';
import { UNLIMITED_RATE } from '../limits/limits.js';
import { gatewayHooksFromEnv } from './seeded-bugs.js';
import { createEmbeddedDispatcher } from '../runtimes/embedded.js';
import { serve, type RunningGateway } from '../serve.js';

export const testJobs = defineJobs(
  defineJob({
    kind: 'demo.echo',
    versions: { current: 'v1' },
    input: z.object({ text: z.string().max(1000) }).strict(),
    output: z.object({ text: z.string() }),
    progress: z.object({ done: z.number() }),
    maxAttempts: 3,
  }),
  defineJob({
    kind: 'demo.copy',
    versions: { current: 'v1' },
    input: z.object({ text: z.string().max(1000) }).strict(),
    output: z.object({ text: z.string() }),
  }),
  defineJob({
    kind: 'demo.rollout',
    versions: { current: 'v1', next: 'v2' },
    input: z.object({ n: z.number().int() }).strict(),
    output: z.object({ n: z.number() }),
  }),
  // Waits for a person's decision (signals, approval tokens).
  defineJob({
    kind: 'demo.approve',
    versions: { current: 'v1' },
    input: z.object({ text: z.string().max(1000) }).strict(),
    output: z.object({ ok: z.boolean() }),
    events: { approved: z.object({ ok: z.boolean(), by: z.string().max(100) }).strict() },
  }),
);
export type TestJobs = typeof testJobs;
export type TestClient = TRPCClient<AppRouter<TestJobs>>;

export const silentLogger = { warn() {}, error() {} };

export interface GatewayFixture {
  readonly db: TestDatabase;
  readonly gateway: Gateway<TestJobs>;
  readonly server: RunningGateway;
  readonly url: string;
  readonly blobs: BlobStore;
  readonly blobRoot: string;
  /** API keys of tenants `acme` and `globex`. */
  readonly keyA: string;
  readonly keyB: string;
  readonly keyIdA: string;
  /** A key of tenant `acme` with the `admin` scope (reads /metrics). */
  readonly adminKey: string;
  /** This gateway's /metrics text (with the admin key). */
  metricsText(): Promise<string>;
  http(key: string | null): TestClient;
  ws(key: string | null, url?: string): { client: TestClient; close(): Promise<void> };
  /** Rows, queue entries, blobs and temp files: for "a rejected request writes nothing". */
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

function countFiles(dir: string, skip?: string): number {
  let n = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (e.name === skip) continue;
    n += e.isDirectory() ? countFiles(join(dir, e.name)) : 1;
  }
  return n;
}

export async function startGateway(
  db: TestDatabase,
  overrides: Partial<GatewayOptions<TestJobs>> = {},
): Promise<GatewayFixture> {
  const { database } = db;
  const hooks = gatewayHooksFromEnv();
  const blobRoot = mkdtempSync(join(tmpdir(), 'sluice-gw-blobs-'));
  const blobs = createLocalBlobStore(blobRoot);
  const gateway = createGateway({
    jobs: testJobs,
    database,
    blobs,
    runtime: createEmbeddedDispatcher(database),
    logger: silentLogger,
    servedVersionsCacheMs: 0,
    auth: { cacheTtlMs: 200 },
    eventPollMs: 20,
    ...(hooks ? { hooks } : {}),
    ...overrides,
    // Suites submit hundreds of jobs at once with one key; the limits' own tests set theirs.
    limits: { keyRate: UNLIMITED_RATE, tenantRate: UNLIMITED_RATE, ...overrides.limits },
  });
  const server = await serve(gateway, { port: 0 });
  await gateway.hub.ready();
  const a = await createApiKey(database.db, 'acme');
  const b = await createApiKey(database.db, 'globex');
  const admin = await createApiKey(database.db, 'acme', {
    scopes: ['admin'],
    label: 'fixture admin',
  });
  const closers: (() => Promise<void>)[] = [];

  const headers = (key: string | null) => (key === null ? {} : { authorization: `Bearer ${key}` });
  return {
    db,
    gateway,
    server,
    url: server.url,
    blobs,
    blobRoot,
    keyA: a.key,
    keyB: b.key,
    keyIdA: a.id,
    adminKey: admin.key,
    async metricsText() {
      const res = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${admin.key}` },
      });
      if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
      return res.text();
    },
    http: (key) =>
      createTRPCClient<AppRouter<TestJobs>>({
        links: [httpBatchLink({ url: `${server.url}/trpc`, headers: () => headers(key) })],
      }),
    ws(key, url = server.url) {
      const wsClient = createWSClient({
        url: `${url.replace(/^http/, 'ws')}/ws`,
        WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
        connectionParams: () => (key === null ? {} : { apiKey: key }),
        retryDelayMs: () => 50,
      });
      const close = async () => {
        await wsClient.close();
      };
      closers.push(close);
      return {
        client: createTRPCClient<AppRouter<TestJobs>>({ links: [wsLink({ client: wsClient })] }),
        close,
      };
    },
    async counts() {
      const n = async (table: 'jobs' | 'job_events' | 'files' | 'outbox') => {
        const row = await database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
        return Number(row.n);
      };
      return {
        jobs: await n('jobs'),
        events: await n('job_events'),
        files: await n('files'),
        outbox: await n('outbox'),
        blobs: countFiles(blobRoot, '.tmp'),
        tempFiles: countFiles(join(blobRoot, '.tmp')),
      };
    },
    async close() {
      for (const c of closers) await c().catch(() => {});
      await server.close();
      rmSync(blobRoot, { recursive: true, force: true });
    },
  };
}

/** The parts of a client error a caller sees, for deep-equality checks. */
export async function errorOf(promise: Promise<unknown>): Promise<{
  message: string;
  data: unknown;
  shape: unknown;
}> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TRPCClientError) {
      return { message: error.message, data: error.data, shape: error.shape };
    }
    throw error;
  }
  throw new Error('expected the call to fail');
}

export interface Watched<T> {
  readonly items: T[];
  /** Settles when the subscription completes (resolves) or errors (rejects). */
  readonly done: Promise<void>;
  /** Resolves once `n` items arrived. */
  until(n: number, timeoutMs?: number): Promise<T[]>;
  stop(): void;
}

/** Subscribes and records what arrives. */
export function record<T>(
  subscribe: (handlers: {
    onData(item: T): void;
    onError(error: unknown): void;
    onComplete(): void;
  }) => { unsubscribe(): void },
): Watched<T> {
  const items: T[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let settle!: { resolve: () => void; reject: (e: unknown) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  done.catch(() => {});
  const sub = subscribe({
    onData(item) {
      items.push(item);
      for (const w of [...waiters]) if (items.length >= w.n) w.resolve();
    },
    onError: (error) => settle.reject(error),
    onComplete: () => settle.resolve(),
  });
  return {
    items,
    done,
    until(n, timeoutMs = 10_000) {
      if (items.length >= n) return Promise.resolve(items);
      return new Promise<T[]>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`got ${items.length} of ${n} items: ${JSON.stringify(items)}`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(items);
          },
        });
        done.catch((error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
      });
    },
    stop: () => sub.unsubscribe(),
  };
}
