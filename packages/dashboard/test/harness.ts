// One suite's world: the UI built for production (vite build → dist/web), a real gateway with the
// dashboard mounted at /dashboard and an embedded worker over a fresh SQLite database, the testkit
// fake provider process (its ledger is the proof of billing) and Debian's Chromium driven by
// playwright-core. Screenshots go to test-artifacts/<dialect>/ (gitignored).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEmbeddedDispatcher, createGateway, serve } from '@sluice/gateway';
// The gateway's seeded bugs, chosen by SLUICE_SEEDED_BUG (test processes only).
import { gatewayHooksFromEnv } from '@sluice/gateway/testing';
import { createApiKey, createLocalBlobStore, type DialectName } from '@sluice/storage';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import { startFakeProvider, type FakeProvider } from '@sluice/testkit';
import { createEmbeddedRuntime, createWorker, silentLogger } from '@sluice/worker';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { mountDashboard } from '../src/server/index.js';
import { jobs, summarize, summarizeHandler } from './fixture-jobs.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const packageDir = fileURLToPath(new URL('..', import.meta.url));
export const artifacts = join(packageDir, 'test-artifacts');

export type Role = 'operator' | 'viewer' | 'admin';

export interface Harness {
  readonly url: string;
  readonly db: TestDatabase;
  readonly provider: FakeProvider;
  readonly browser: Browser;
  key(role: Role): string;
  keyId(role: Role): string;
  /** A new page signed in with `role`'s key, on `hash` (default the jobs page). */
  signIn(role: Role, hash?: string): Promise<Page>;
  /** The whole page, or its top `height` pixels (a small picture for the docs). */
  screenshot(page: Page, name: string, height?: number): Promise<string>;
  /** Page errors and console errors seen so far. */
  readonly problems: string[];
  close(): Promise<void>;
}

let built: Promise<void> | undefined;
/** Builds the UI once per process. */
export function buildUi(): Promise<void> {
  built ??= build({
    configFile: join(packageDir, 'vite.config.ts'),
    logLevel: 'warn',
  }).then(() => {});
  return built;
}

export async function startHarness(dialect: DialectName = 'sqlite'): Promise<Harness> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`no Chromium at ${chromiumPath}: run scripts/install-chromium.sh`);
  }
  // One folder of screenshots per dialect.
  mkdirSync(join(artifacts, dialect), { recursive: true });
  const [db, provider] = await Promise.all([
    createTestDatabase(dialect),
    startFakeProvider(),
    buildUi(),
  ]);
  const blobRoot = mkdtempSync(join(tmpdir(), 'sluice-dashboard-blobs-'));
  const blobs = createLocalBlobStore(blobRoot);
  const { database } = db;
  const hooks = gatewayHooksFromEnv();
  const gateway = createGateway({
    jobs,
    database,
    blobs,
    runtime: createEmbeddedDispatcher(database),
    logger: { warn() {}, error() {} },
    eventPollMs: 20,
    servedVersionsCacheMs: 0,
    ...(hooks ? { hooks } : {}),
  });
  mountDashboard(gateway.app);
  const server = await serve(gateway, { port: 0 });
  await gateway.hub.ready();
  const keys = {
    operator: await createApiKey(database.db, 'acme', {
      label: 'ops alice',
      scopes: ['jobs:submit', 'jobs:read', 'jobs:manage', 'review:decide', 'dead-letters:manage'],
    }),
    viewer: await createApiKey(database.db, 'acme', { label: 'viewer', scopes: ['jobs:read'] }),
    admin: await createApiKey(database.db, 'acme', { label: 'root admin', scopes: ['admin'] }),
  };
  const worker = createWorker({
    jobs,
    handlers: { [summarize.kind]: { v1: summarizeHandler(provider.url) } },
    database,
    blobs,
    concurrency: 8,
    // Units in plan order: u0 is answered before u1 is tried.
    unitConcurrency: 1,
    leaseMs: 3000,
    renewEveryMs: 300,
    retryBackoff: { baseMs: 50, maxMs: 200 },
    logger: silentLogger,
    runtime: (ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 20, blockMs: 200 }),
  });
  await worker.start();
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const problems: string[] = [];
  const url = `${server.url}/dashboard/`;
  return {
    url,
    db,
    provider,
    browser,
    problems,
    key: (role) => keys[role].key,
    keyId: (role) => keys[role].id,
    async signIn(role, hash = '#/jobs') {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      page.on('pageerror', (e) => problems.push(`${role}: ${e.message}`));
      page.on('console', (m) => m.type() === 'error' && problems.push(`${role}: ${m.text()}`));
      await page.goto(`${url}${hash}`);
      await page.getByLabel('API key').fill(keys[role].key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator(`[data-key-id="${keys[role].id}"]`).waitFor();
      return page;
    },
    async screenshot(page, name, height) {
      const path = join(artifacts, dialect, `${name}.png`);
      await page.screenshot(
        height ? { path, clip: { x: 0, y: 0, width: 1280, height } } : { path, fullPage: true },
      );
      return path;
    },
    async close() {
      await browser.close();
      await worker.stop({ deadlineMs: 2000 });
      await server.close();
      await gateway.close();
      await provider[Symbol.asyncDispose]();
      await db.dispose();
      rmSync(blobRoot, { recursive: true, force: true });
    },
  };
}
