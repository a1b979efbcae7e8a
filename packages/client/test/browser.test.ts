// The client in a real browser: a page bundled with Vite (browser conditions) and served by the
// gateway itself uploads a File, submits, watches to the end over the browser's own WebSocket and
// gets typed results and errors, in Debian's Chromium driven by playwright-core.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { build, type Rolldown } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './fixtures/stack.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const entry = fileURLToPath(new URL('./browser/page.ts', import.meta.url));

async function bundlePage(): Promise<string> {
  const result = await build({
    configFile: false,
    logLevel: 'silent',
    build: { write: false, minify: true, lib: { entry, formats: ['es'] } },
    resolve: { conditions: ['@sluice/source', 'browser', 'module', 'import'] },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((c) => c.type === 'chunk');
  expect(chunks).toHaveLength(1);
  return chunks[0]!.code;
}

const html = `<!doctype html><html><head><meta charset="utf-8"><title>sluice</title></head>
<body><ul id="events"></ul><script type="module" src="/app.js"></script></body></html>`;

// Never skipped: `npm test` installs Chromium first (pretest), so a missing browser is a failure.
describe('client in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let bundle: string;

  beforeAll(async () => {
    if (!existsSync(chromiumPath)) {
      throw new Error(
        `no Chromium at ${chromiumPath}: run scripts/install-chromium.sh or set CHROMIUM_PATH`,
      );
    }
    bundle = await bundlePage();
    stack = await startStack('sqlite', {
      routes: (app) => {
        app.get('/', (c) => c.html(html));
        app.get('/app.js', (c) => c.body(bundle, 200, { 'content-type': 'text/javascript' }));
        app.get('/favicon.ico', (c) => c.body(null, 204));
      },
    });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('the page bundle carries no zod: the registry is a type-only import', () => {
    expect(bundle).not.toContain('ZodError');
    expect(bundle).not.toContain('$ZodType');
    console.info(`browser page bundle: ${bundle.length} B minified`);
  });

  it('uploads a File, submits, watches to the end and gets typed results', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${stack.url}/?key=${encodeURIComponent(stack.apiKey)}`);
    await page.waitForSelector('body[data-done]', { timeout: 30_000 });
    const result = (await page.evaluate('window.sluiceResult')) as Record<string, unknown>;
    expect(result.error).toBeUndefined();

    const text = 'hello from chromium\n';
    const sha256 = createHash('sha256').update(text).digest('hex');
    expect(result.file).toMatchObject({ filename: 'hello.txt', contentType: 'text/plain', sha256 });
    expect(result.digest).toEqual({ size: text.length, sha256 });
    expect(result.output).toEqual({ text: 'from the browser', steps: 3 });
    const events = result.events as { seq: number; type: string; to?: string }[];
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'progress')).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: 'state', to: 'succeeded' });
    expect(result.failed).toMatchObject({
      guard: true,
      error: { name: 'JobFailedError', code: 'JOB_FAILED' },
    });
    const rendered = await page.locator('#events li').allTextContents();
    expect(rendered.at(-1)).toMatch(/succeeded$/);
    expect(rendered).toContain(`#${events.findIndex((e) => e.type === 'progress') + 1} step 1/3`);
    expect(problems).toEqual([]);
    await page.close();
  });
});
