// One suite's world: the front end built for production, the fake AI provider process (its
// ledger is the proof of billing), the example app (gateway + worker, SQLite and local blobs in a
// temp folder) and Debian's Chromium driven by playwright-core. Screenshots go to
// test-artifacts/ (gitignored).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnNode, type ChildHandle } from '@sluice/testkit';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startApp, type RunningApp } from '../src/server/app.js';
import { buildWeb } from '../src/server/build-web.js';
import { startProvider, type StartedProvider } from '../src/provider/start-provider.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const exampleDir = fileURLToPath(new URL('..', import.meta.url));
export const artifacts = join(exampleDir, 'test-artifacts');

export interface Harness {
  readonly app: RunningApp;
  readonly ai: StartedProvider;
  readonly browser: Browser;
  /**
   * A new page signed in as `tenant` (acme or globex), on the documents page; `operator`: with
   * acme's operator login (scope `jobs:manage`).
   */
  signIn(tenant: 'acme' | 'globex', opts?: { operator?: boolean }): Promise<Page>;
  key(tenant: 'acme' | 'globex'): string;
  /** Rows this tenant has in a table (files, jobs, provider_calls). */
  rows(table: 'files' | 'jobs' | 'provider_calls', tenant: string): Promise<number>;
  screenshot(page: Page, name: string): Promise<string>;
  /** A worker process over the app's database and blobs (killed when the suite ends). */
  worker(id: string): Promise<ChildHandle>;
  /** Page errors and console errors seen so far. */
  readonly problems: string[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Run workers as child processes (`worker(id)`) instead of inside the app. */
  childWorkers?: boolean;
  /** Share of new documents the gateway sends to `document.analyze` v2. */
  rolloutPercent?: number;
}

export async function startHarness(o: HarnessOptions = {}): Promise<Harness> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`no Chromium at ${chromiumPath}: run scripts/install-chromium.sh`);
  }
  mkdirSync(artifacts, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'sluice-chatbot-test-'));
  const [webRoot, ai] = await Promise.all([
    buildWeb(exampleDir),
    startProvider({ dataDir: join(dir, 'provider') }),
  ]);
  const app = await startApp({
    dataDir: dir,
    aiUrl: ai.url,
    webRoot,
    worker: !o.childWorkers,
    ...(o.rolloutPercent === undefined ? {} : { rolloutPercent: o.rolloutPercent }),
  });
  const children: ChildHandle[] = [];
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const problems: string[] = [];
  const key = (tenant: string, operator = false) =>
    app.logins.find((l) => l.tenant === tenant && !!l.operator === operator)!.apiKey;
  return {
    app,
    ai,
    browser,
    problems,
    key: (tenant) => key(tenant),
    async signIn(tenant, opts = {}) {
      const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      page.on('pageerror', (e) => problems.push(`${tenant}: ${e.message}`));
      page.on('console', (m) => m.type() === 'error' && problems.push(`${tenant}: ${m.text()}`));
      await page.goto(app.url);
      await page.getByLabel('API key').fill(key(tenant, opts.operator));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator(`[data-tenant="${tenant}"]`).waitFor();
      return page;
    },
    async rows(table, tenant) {
      const r = await app.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenant)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async screenshot(page, name) {
      const path = join(artifacts, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async worker(id) {
      const child = await spawnNode(new URL('./worker-child.ts', import.meta.url), {
        env: {
          DB_URL: join(dir, 'sluice.db'),
          BLOB_DIR: join(dir, 'blobs'),
          AI_URL: ai.url,
          WORKER_ID: id,
        },
        readyLine: /^READY$/m,
        readyTimeoutMs: 30_000,
      });
      children.push(child);
      return child;
    },
    async close() {
      for (const child of children) await child.kill();
      await browser.close();
      await app.close();
      await ai.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
