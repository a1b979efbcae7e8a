// The dashboard in Chromium against a real gateway and worker (SQLite, then PostgreSQL unless
// SLUICE_TEST_PG=0) and the fake provider:
// search by tag; a provider outage dead-letters a batch and ONE bulk requeue from the dead-letters
// page brings every job to succeeded, the provider billing exactly once per call (never twice for
// an answered one); a rerun from a unit reuses the checkpoints and sends nothing; an approval's
// note shows who and why on the audit page; a read-only key sees no action and the API refuses it,
// sees a secret input field redacted, and the overview's finished counts and latency histogram.
import { createSluiceClient, type SluiceClient } from '@sluice/client';
import { callsForJob } from '@sluice/storage';
import { TEST_DIALECTS } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import type { Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Jobs } from './fixture-jobs.js';
import { startHarness, type Harness } from './harness.js';

const BATCH = Number(process.env.DASHBOARD_BATCH ?? 50);

for (const dialect of TEST_DIALECTS)
  describe(`dashboard in Chromium [${dialect}]`, () => {
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

    /** Jobs tagged `tag` in `state`, every page read. */
    async function count(tag: string, state: 'dead_lettered' | 'succeeded'): Promise<number> {
      let n = 0;
      let cursor: string | null = null;
      do {
        const page = await client.jobs.search({ tags: [tag], states: [state], limit: 100, cursor });
        n += page.items.length;
        cursor = page.nextCursor;
      } while (cursor);
      return n;
    }

    const stateOf = (page: Page, id: string) =>
      page.locator(`tr[data-job="${id}"]`).getAttribute('data-state');

    it('search by tag finds the job, and its state changes live', async () => {
      const other = await client.submit(
        'batch.summarize',
        { doc: 'plain' },
        { tags: ['internal'] },
      );
      const tagged = await client.submit(
        'batch.summarize',
        { doc: 'contract' },
        { tags: ['customer-42'], metadata: { region: 'eu' } },
      );
      await Promise.all([other.result(), tagged.result()]);
      const page = await h.signIn('operator');
      // Keyboard: `/` jumps to the filters, Tab walks them.
      await page.keyboard.press('/');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('kind');
      await page.keyboard.press('Tab');
      await page.keyboard.type('customer-42');
      expect(await page.getByLabel('Tags').inputValue()).toBe('customer-42');
      await page.getByRole('button', { name: 'Search' }).click();
      // The unfiltered list shows the tagged job too: wait for the other one to leave first, so
      // the count below reads the filtered page (a loaded run read the old list: 2 rows).
      await page.locator(`tr[data-job="${other.id}"]`).waitFor({ state: 'detached' });
      await page.locator(`tr[data-job="${tagged.id}"]`).waitFor();
      expect(await page.locator('table.jobs tbody tr').count()).toBe(1);
      expect(page.url()).toContain('tag=customer-42');
      // A job due in 8 s is read while scheduled; only the live feed can then move its row.
      const live = await client.submit(
        'batch.summarize',
        { doc: 'live', units: 3 },
        { tags: ['live'], delayMs: 8000 },
      );
      await page.goto(`${h.url}#/jobs?tag=live`);
      await page.locator(`tr[data-job="${live.id}"]`).waitFor();
      expect(await stateOf(page, live.id)).toBe('scheduled');
      await live.result();
      await waitFor(async () => (await stateOf(page, live.id)) === 'succeeded', {
        timeoutMs: 10_000,
        message: 'the row turns succeeded live',
      });
      await page.goto(`${h.url}#/jobs`);
      await page.locator(`tr[data-job="${tagged.id}"]`).waitFor();
      await h.screenshot(page, 'jobs');
      await page.close();
    });

    it(
      `a provider outage dead-letters ${BATCH} jobs; ONE bulk requeue brings all to succeeded, billing only the calls never answered`,
      { timeout: 60_000 + BATCH * 1000 },
      async () => {
        // u1 of every job: 503 before processing (the provider bills nothing) until the outage ends.
        await h.provider.setFaults([
          { endpoint: 'safe', unitKey: 'u1', fault: 'error-before-processing', times: 100_000 },
        ]);
        const handles = await Promise.all(
          Array.from({ length: BATCH }, (_, i) =>
            client.submit('batch.summarize', { doc: `outage-${i}` }, { tags: ['outage'] }),
          ),
        );
        const ids = handles.map((j) => j.id);
        await waitFor(async () => (await count('outage', 'dead_lettered')) === BATCH, {
          timeoutMs: 120_000,
          message: `${BATCH} jobs dead-lettered`,
        });
        const before = new Map(
          await Promise.all(
            ids.map(async (id) => [id, await callsForJob(h.db.database.db, id)] as const),
          ),
        );
        await h.provider.clearFaults();

        const page = await h.signIn('operator', '#/dead-letters?tag=outage');
        await page.locator('table.jobs tbody tr').first().waitFor();
        await page.getByRole('button', { name: 'Dry run' }).click();
        await page.locator(`.preview[data-count="${BATCH}"]`).waitFor();
        await h.screenshot(page, 'dead-letters');
        await page.getByLabel('Bulk note').fill('provider outage over');
        await page.getByRole('button', { name: `Requeue ${BATCH}` }).click();
        await page.locator('.progress[data-state="succeeded"]').waitFor({ timeout: 60_000 });
        expect(await page.locator('.progress').getAttribute('data-processed')).toBe(String(BATCH));
        await waitFor(async () => (await count('outage', 'succeeded')) === BATCH, {
          timeoutMs: 120_000,
          message: `${BATCH} jobs succeeded`,
        });
        await h.screenshot(page, 'dead-letters-requeued');

        // The provider's own ledger: every call billed exactly once, u0 (answered before the outage)
        // never sent again, u1 (never answered) sent once more.
        const ledger = await h.provider.ledger();
        for (const id of ids) {
          const mine = ledger.filter((r) => r.jobId === id);
          expect(mine.filter((r) => r.unitKey === 'u0')).toHaveLength(1);
          expect(mine.filter((r) => r.unitKey === 'u0' && r.billed)).toHaveLength(1);
          expect(mine.filter((r) => r.unitKey === 'u1' && r.billed)).toHaveLength(1);
          // Our ledger: u0's row untouched; u1 gained exactly one answered call.
          const after = await callsForJob(h.db.database.db, id);
          const old = before.get(id)!;
          expect(after.filter((c) => c.unitKey === 'u0')).toEqual(
            old.filter((c) => c.unitKey === 'u0'),
          );
          expect(after.length - old.length).toBe(1);
          expect(after.filter((c) => c.unitKey === 'u1' && c.outcome === 'succeeded')).toHaveLength(
            1,
          );
        }
        await page.goto(`${h.url}#/jobs?tag=outage`);
        await page.locator('table.jobs tr[data-state="succeeded"]').first().waitFor();
        await h.screenshot(page, 'jobs-small', 420);
        await page.goto(`${h.url}#/jobs/${ids[0]}`);
        await page.locator('.detail[data-state="succeeded"]').waitFor();
        await h.screenshot(page, 'job-detail');
        await page.close();
      },
    );

    it('a rerun from a unit reuses the checkpoints before it and sends no call again', async () => {
      const job = await client.submit('batch.summarize', { doc: 'rerun-me', units: 3 });
      await job.result();
      const calls = await callsForJob(h.db.database.db, job.id);
      const sent = (await h.provider.ledger({ jobId: job.id })).length;
      const billed = (await client.jobs.detail(job.id)).bills.billed;
      const page = await h.signIn('operator', `#/jobs/${job.id}`);
      await page.locator('.detail[data-state="succeeded"]').waitFor();
      await page.getByLabel('Rerun from unit').selectOption('u1');
      await page.getByLabel('Note').fill('new merge code');
      await page.getByRole('button', { name: 'Rerun' }).click();
      await page.getByText('Done: rerun.').waitFor();
      await waitFor(
        async () =>
          (await client.jobs.detail(job.id)).attempts.length === 2 &&
          (await client.jobs.get(job.id)).state === 'succeeded',
        {
          timeoutMs: 20_000,
          message: 'rerun succeeded',
        },
      );
      const detail = await client.jobs.detail(job.id);
      const reused = detail.events
        .filter((e) => e.type === 'unit_done' && e.reused)
        .map((e) => e.type === 'unit_done' && e.unitKey);
      expect(reused).toContain('u0');
      expect(await callsForJob(h.db.database.db, job.id)).toEqual(calls);
      expect((await h.provider.ledger({ jobId: job.id })).length).toBe(sent);
      // The page shows it: the units' epochs and the same bill count.
      await page.locator('.detail[data-state="succeeded"] tr[data-step="unit:u1"]').waitFor();
      expect(await page.getByTestId('bills').textContent()).toBe(String(billed));
      await page.close();
    });

    it('an approval with a note shows who and why on the audit page', async () => {
      await h.provider.setFaults([{ endpoint: 'sync', fault: 'commit-then-drop', times: 1 }]);
      const job = await client.submit('batch.summarize', { doc: 'review-me', units: 1 });
      await waitFor(async () => (await client.jobs.get(job.id)).state === 'needs_review', {
        timeoutMs: 30_000,
        message: 'parked in needs_review',
      });
      const page = await h.signIn('operator', '#/review');
      const item = page.locator(`li[data-job="${job.id}"]`);
      await item.waitFor();
      await h.screenshot(page, 'review');
      expect(await item.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
      await item
        .getByLabel(`Note for ${job.id}`)
        .fill('provider says the first call was not charged');
      await item.getByRole('button', { name: 'Approve' }).click();
      await item.waitFor({ state: 'detached' });
      await job.result();
      await page.goto(`${h.url}#/audit`);
      const row = page.locator('tr[data-action="review.approve"]').first();
      await row.waitFor();
      expect(await row.locator('.who').textContent()).toBe('ops alice');
      expect(await row.locator('.note').textContent()).toBe(
        'provider says the first call was not charged',
      );
      await h.screenshot(page, 'audit');
      await page.close();
    });

    it('a read-only key sees no action buttons, and the API refuses the action anyway', async () => {
      // One job that succeeds, for the overview's finished counts (this case may run alone).
      const done = await client.submit('batch.summarize', { doc: 'viewer-done', units: 1 });
      await waitFor(async () => (await client.jobs.get(done.id)).state === 'succeeded', {
        timeoutMs: 30_000,
        message: 'succeeded',
      });
      await h.provider.setFaults([
        { endpoint: 'safe', fault: 'error-before-processing', times: 100 },
      ]);
      const job = await client.submit(
        'batch.summarize',
        { doc: 'viewer-sees', units: 1, apiKey: 'sk-ui-secret' },
        { tags: ['ro'] },
      );
      await waitFor(async () => (await client.jobs.get(job.id)).state === 'dead_lettered', {
        timeoutMs: 30_000,
        message: 'dead-lettered',
      });
      await h.provider.clearFaults();
      const page = await h.signIn('viewer', `#/jobs/${job.id}`);
      await page.locator('.detail[data-state="dead_lettered"]').waitFor();
      expect(await page.getByRole('button', { name: /Requeue|Rerun|Cancel/ }).count()).toBe(0);
      // The kind marks input.apiKey secret: the raw input shows it redacted, never the value.
      await page.getByText('Raw input and output').click();
      expect(await page.locator('details.panel pre').first().textContent()).toContain(
        '"apiKey": "[redacted]"',
      );
      expect(await page.content()).not.toContain('sk-ui-secret');
      await page.goto(`${h.url}#/dead-letters?tag=ro`);
      await page.locator(`tr[data-job="${job.id}"]`).waitFor();
      expect(await page.getByRole('button', { name: 'Dry run' }).count()).toBe(0);
      await page.goto(`${h.url}#/audit`);
      await page.getByText('needs a key with the jobs:manage scope').waitFor();
      // The overview counts it among the open jobs, with its reason among the parked ones.
      await page.goto(`${h.url}#/overview`);
      const open = page.locator(
        'tr[data-kind="batch.summarize"][data-state="dead_lettered"] .count',
      );
      await open.waitFor();
      expect(await open.textContent()).toBe('1');
      expect(await page.locator('table.waiting').textContent()).toContain('MAX_ATTEMPTS');
      // Activity: the job that succeeded counts in the last hour, and the gateway's own submit
      // latency histogram has observed the submits.
      const finished = page.locator('table.finished tr[data-state="succeeded"] [data-window="1h"]');
      await finished.waitFor();
      expect(Number(await finished.textContent())).toBeGreaterThanOrEqual(1);
      const accept = page.locator('[data-metric="sluice_gateway_accept_seconds"] h4 .count');
      expect(Number(await accept.textContent())).toBeGreaterThanOrEqual(2);
      await h.screenshot(page, 'overview');
      // The call the hidden button would make, with the viewer's key: refused, nothing moves.
      const viewer = createSluiceClient<Jobs>({
        url: new URL(h.url).origin,
        apiKey: h.key('viewer'),
      });
      const refused = await viewer.jobs.requeue(job.id).then(
        () => undefined,
        (e: { code?: string; message?: string }) => e,
      );
      await viewer.close();
      expect(refused?.code).toBe('FORBIDDEN');
      expect(refused?.message).toContain('jobs:manage');
      expect((await client.jobs.get(job.id)).state).toBe('dead_lettered');
      await page.close();
    });
  });
