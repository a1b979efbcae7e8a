// useJob and useJobs rendered by React 19 in Debian's Chromium (playwright-core), against a real
// gateway and worker: live state and progress without polling, gap-free resume after the
// gateway drops every socket or restarts, typed results and errors, a parked job followed through
// a person's approval, and a list that picks up jobs submitted elsewhere.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createSluiceClient, type SluiceClient } from '@sluice/client';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build, type Rolldown } from 'vite';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestJobs } from './fixtures/jobs.js';
import { startStack, type Stack } from './fixtures/stack.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const entry = fileURLToPath(new URL('./browser/page.tsx', import.meta.url));

async function bundlePage(): Promise<string> {
  const result = await build({
    configFile: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
    mode: 'production',
    oxc: { jsx: { runtime: 'automatic', development: false } },
    build: { write: false, minify: true, lib: { entry, formats: ['es'] } },
    resolve: { conditions: ['@sluice/source', 'browser', 'module', 'import'] },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((c) => c.type === 'chunk');
  expect(chunks).toHaveLength(1);
  return chunks[0]!.code;
}

const html = `<!doctype html><html><head><meta charset="utf-8"><title>hooks</title></head>
<body><div id="root"></div><script type="module" src="/app.js"></script></body></html>`;

const attr = (page: Page, id: string, name: string) =>
  page.locator(`[data-job="${id}"]`).getAttribute(`data-${name}`);

async function waitAttr(page: Page, selector: string, name: string, value: string | RegExp) {
  await page.waitForFunction(
    ([sel, n, v, isRe]) => {
      const got = document.querySelector(sel as string)?.getAttribute(`data-${n as string}`);
      return got != null && (isRe ? new RegExp(v as string).test(got) : got === v);
    },
    [selector, name, typeof value === 'string' ? value : value.source, typeof value !== 'string'],
    { timeout: 30_000 },
  );
}

const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(',');

describe('@sluice/react hooks in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let bundle: string;
  let node: SluiceClient<TestJobs>;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(chromiumPath)) {
      throw new Error(`no Chromium at ${chromiumPath}: run scripts/install-chromium.sh`);
    }
    bundle = await bundlePage();
    stack = await startStack((app) => {
      app.get('/', (c) => c.html(html));
      app.get('/app.js', (c) => c.body(bundle, 200, { 'content-type': 'text/javascript' }));
      app.get('/favicon.ico', (c) => c.body(null, 204));
    });
    node = createSluiceClient<TestJobs>({ url: stack.url, apiKey: stack.apiKey, WebSocket });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    page = await browser.newPage();
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    await page.goto(`${stack.url}/?key=${encodeURIComponent(stack.apiKey)}`);
    await page.waitForSelector('body[data-ready]', { state: 'attached' }).catch((e: Error) => {
      throw new Error(`page not ready: ${[e.message, ...problems].join('\n')}`);
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await node?.close();
    await stack?.close();
  });

  it('useJob(handle) shows every progress step live, in order, then the typed result', async () => {
    const id = (await page.evaluate('window.hooks.submitAndWatch("live", 6, 150)')) as string;
    // Seen mid-job: the page shows progress before the job ends (live, not after the fact).
    await waitAttr(page, `[data-job="${id}"]`, 'progress', /^[1-5]\/6$/);
    expect(await attr(page, id, 'state')).toBe('running');
    await waitAttr(page, `[data-job="${id}"]`, 'state', 'succeeded');
    await waitAttr(page, `[data-job="${id}"]`, 'result', /.+/);
    expect(JSON.parse((await attr(page, id, 'result'))!)).toEqual({ label: 'live', steps: 6 });
    expect(await attr(page, id, 'steps')).toBe(oneToN(6));
    const seqs = (await attr(page, id, 'seqs'))!.split(',').map(Number);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(await attr(page, id, 'units')).toBe('6');
  });

  it('useJob(id) resumes without a gap or a repeat after every socket drops and after a gateway restart', async () => {
    const handle = await node.submit('test.steps', { label: 'resume', steps: 10, stepMs: 250 });
    await page.evaluate(`window.hooks.watch(${JSON.stringify(handle.id)})`);
    await waitAttr(page, `[data-job="${handle.id}"]`, 'progress', /^[2-9]\/10$/);
    expect(stack.gateway.websocket.count()).toBeGreaterThan(0);
    stack.gateway.websocket.terminateAll();
    await waitAttr(page, `[data-job="${handle.id}"]`, 'progress', /^[5-9]\/10$/);
    await stack.restartGateway();
    await waitAttr(page, `[data-job="${handle.id}"]`, 'state', 'succeeded');
    expect(await attr(page, handle.id, 'steps')).toBe(oneToN(10));
    const seqs = (await attr(page, handle.id, 'seqs'))!.split(',').map(Number);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it('a failed job ends with the typed JobFailedError', async () => {
    const handle = await node.submit('test.broken', { why: 'bad input' });
    await page.evaluate(`window.hooks.watch(${JSON.stringify(handle.id)})`);
    await waitAttr(page, `[data-job="${handle.id}"]`, 'state', 'failed');
    await waitAttr(page, `[data-job="${handle.id}"]`, 'error', 'JobFailedError');
    expect(await attr(page, handle.id, 'result')).toBe('');
  });

  it('a parked job shows needs_review and enters a needs_review list, then follows the approval live to its result and leaves the list', async () => {
    const handle = await node.submit('test.review', { label: 'parked' });
    await page.evaluate(`window.hooks.watch(${JSON.stringify(handle.id)})`);
    await waitAttr(page, `[data-job="${handle.id}"]`, 'state', 'needs_review');
    await waitAttr(page, `[data-job="${handle.id}"]`, 'error', 'JobNeedsReviewError');
    expect(await attr(page, handle.id, 'reason')).not.toBe('');
    // The needs_review list (mounted before the job existed) picked it up live.
    await page.locator(`#review-list [data-review-job="${handle.id}"]`).waitFor();
    await node.review.approve(handle.id, 'checked by hand', 'test.review');
    await page
      .locator(`#review-list [data-review-job="${handle.id}"]`)
      .waitFor({ state: 'detached' });
    await waitAttr(page, `[data-job="${handle.id}"]`, 'state', 'succeeded');
    await waitAttr(page, `[data-job="${handle.id}"]`, 'result', /.+/);
    expect(await attr(page, handle.id, 'error')).toBe('');
    expect(JSON.parse((await attr(page, handle.id, 'result'))!)).toMatchObject({ label: 'parked' });
  });

  it('useJobs lists jobs submitted elsewhere and keeps their state live, also across a restart', async () => {
    const first = await node.submit('test.steps', { label: 'listed', steps: 4, stepMs: 200 });
    const row = (id: string) => `#list [data-list-job="${id}"]`;
    await waitAttr(page, row(first.id), 'progress', /^[1-3]\/4$/);
    await waitAttr(page, row(first.id), 'state', 'succeeded');
    // A job submitted and finished while the page's socket is gone appears after the reconnect.
    stack.gateway.websocket.terminateAll();
    const during = await node.submit('test.steps', { label: 'gap', steps: 1, stepMs: 0 });
    await during.result();
    await waitAttr(page, row(during.id), 'state', 'succeeded');
    // A kind outside the filter never shows.
    const other = await node.submit('test.broken', { why: 'not listed' });
    await other.result().catch(() => undefined);
    expect(await page.locator(row(other.id)).count()).toBe(0);
    // Chromium logs the refused reconnects while the gateway restarts: those are the test's doing.
    expect(problems.filter((p) => !/^WebSocket connection to .* failed/.test(p))).toEqual([]);
  });
});
