// The dashboard's serving and admin paths in Chromium against a real gateway and worker (SQLite,
// then PostgreSQL unless SLUICE_TEST_PG=0): an admin creates and revokes an API key on the
// overview (both audited) while an operator sees no keys; the UI is served with the right content
// types and caching under its mount path; standalone behind its proxy it signs in, stays live,
// and refuses a WebSocket from another origin.
import { createSluiceClient, type SluiceClient } from '@sluice/client';
import { TEST_DIALECTS } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import type { Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveDashboard } from '../src/server/index.js';
import type { Jobs } from './fixture-jobs.js';
import { startHarness, type Harness } from './harness.js';

for (const dialect of TEST_DIALECTS)
  describe(`dashboard serving and keys in Chromium [${dialect}]`, () => {
    let h: Harness;
    let client: SluiceClient<Jobs>;
    beforeAll(async () => {
      h = await startHarness(dialect);
      client = createSluiceClient<Jobs>({
        url: new URL(h.url).origin,
        apiKey: h.key('operator'),
        WebSocket,
      });
    }, 180_000);
    afterAll(async () => {
      await client?.close();
      await h?.close();
      expect(h?.problems ?? []).toEqual([]);
    });

    const stateOf = (page: Page, id: string) =>
      page.locator(`tr[data-job="${id}"]`).getAttribute('data-state');

    it('an admin creates and revokes a key on the overview, both audited; an operator sees no keys', async () => {
      const page = await h.signIn('admin', '#/overview');
      await page.getByLabel('Key label').fill('ci bot');
      await page.getByLabel('Key note').fill('for the nightly export');
      await page.getByRole('button', { name: 'Create key' }).click();
      const secret = (await page.getByTestId('new-key').textContent()) ?? '';
      const bot = createSluiceClient<Jobs>({ url: new URL(h.url).origin, apiKey: secret });
      const me = await bot.auth.whoami();
      await bot.close();
      expect(me).toMatchObject({ label: 'ci bot', tenantId: 'acme', scopes: ['jobs:read'] });
      await page
        .locator(`tr[data-key="${me.keyId}"]`)
        .getByRole('button', { name: 'Revoke' })
        .click();
      await page.locator(`tr[data-key="${me.keyId}"][data-revoked="true"]`).waitFor();
      await page.goto(`${h.url}#/audit`);
      const created = page.locator('tr[data-action="key.create"]').first();
      await created.waitFor();
      expect(await created.locator('.who').textContent()).toBe('root admin');
      expect(await created.locator('.note').textContent()).toBe('for the nightly export');
      await page.locator('tr[data-action="key.revoke"]').first().waitFor();
      await page.close();
      const operator = await h.signIn('operator', '#/overview');
      await operator.getByRole('heading', { name: 'Open jobs' }).waitFor();
      expect(await operator.getByRole('heading', { name: 'API keys' }).count()).toBe(0);
      expect(
        await client.keys.list().then(
          () => 'listed',
          (e: { code?: string }) => e.code,
        ),
      ).toBe('FORBIDDEN');
      await operator.close();
    });

    it('is served with the right types and caching, and standalone behind its proxy, live over the proxied WebSocket', async () => {
      const base = h.url.replace(/\/$/, '');
      const bare = await fetch(base, { redirect: 'manual' });
      expect([bare.status, bare.headers.get('location')]).toEqual([308, '/dashboard/']);
      const index = await fetch(`${base}/jobs/deep/link`);
      expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(index.headers.get('cache-control')).toBe('no-cache');
      const html = await index.text();
      expect(html).toContain('<base href="/dashboard/" />');
      const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
      const asset = await fetch(`${base}/${script}`);
      expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

      const standalone = await serveDashboard({ gateway: new URL(h.url).origin, port: 0 });
      try {
        const page = await h.browser.newPage({ viewport: { width: 1280, height: 800 } });
        page.on('pageerror', (e) => h.problems.push(`standalone: ${e.message}`));
        await page.goto(`${standalone.url}/#/jobs?tag=proxied`);
        await page.getByLabel('API key').fill(h.key('operator'));
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.locator(`[data-key-id="${h.keyId('operator')}"]`).waitFor();
        await page.getByText('No job matches.').waitFor();
        const job = await client.submit(
          'batch.summarize',
          { doc: 'proxied', units: 3 },
          { tags: ['proxied'], delayMs: 8000 },
        );
        await page.reload();
        await page.locator(`tr[data-job="${job.id}"]`).waitFor();
        expect(await stateOf(page, job.id)).toBe('scheduled');
        await job.result();
        // Read while scheduled: only the live feed through the proxy can move the row.
        await waitFor(async () => (await stateOf(page, job.id)) === 'succeeded', {
          timeoutMs: 10_000,
          message: 'the row turns succeeded through the proxy',
        });
        // A page of another origin may not open the proxied socket; the dashboard's own may.
        const handshake = (origin: string) =>
          new Promise<number>((resolve) => {
            const ws = new WebSocket(`${standalone.url.replace('http', 'ws')}/ws`, { origin });
            ws.on('open', () => {
              ws.close();
              resolve(101);
            });
            ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
            ws.on('error', () => resolve(0));
          });
        expect(await handshake('http://evil.example')).toBe(403);
        expect(await handshake(standalone.url)).toBe(101);
        await page.close();
      } finally {
        await standalone.close();
      }
    });
  });
