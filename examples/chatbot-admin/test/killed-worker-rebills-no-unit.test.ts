// SIGKILL of the worker mid-analysis, watched in Chromium: the page keeps its live view (no
// reload), the next worker takes the job over and finishes it, and the provider's own ledger
// shows every unit billed once — the finished page is reused from its checkpoint, the page whose
// intent job was in flight is polled by its recorded id, never submitted again.
import type { Page } from 'playwright-core';
import { getJobById, listEvents } from '@sluice/storage';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billsOf } from '../src/provider/ledger.js';
import { makePdf } from './documents.js';
import { startHarness, type Harness } from './harness.js';

describe('a worker SIGKILLed mid-analysis (Chromium)', () => {
  let h: Harness;
  let page: Page;

  beforeAll(async () => {
    h = await startHarness({ childWorkers: true });
    page = await h.signIn('acme');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('the page stays live, the job resumes on another worker, and no finished unit is billed again', async () => {
    const first = await h.worker('w-killed');
    // Page 2's intent job runs 4 s at the provider: the kill lands while it is in flight.
    await h.ai.setFaults([{ fault: 'slow', call: 'intents', unitKey: 'page-02', delayMs: 4000 }]);
    await page.evaluate(
      () => ((window as unknown as { sameDocument: string }).sameDocument = 'yes'),
    );
    await page
      .locator('input[type=file]')
      .setInputFiles([
        { name: 'killed.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf()) },
      ]);
    const running = page.locator('tr[data-doc="killed.pdf"][data-state="running"]');
    await running.locator('.unit-progress[data-units-done="1"]').waitFor({ timeout: 30_000 });
    const jobId = (await running.getAttribute('data-job'))!;
    await waitFor(() => billsOf(h.ai.ledger(), jobId)['intents:page-02'] === 1, {
      timeoutMs: 10_000,
      message: "page 2's intent job submitted",
    });
    // Give the worker a moment to record the intent job's external id, then kill it.
    await new Promise((r) => setTimeout(r, 300));
    expect((await first.kill()).signal).toBe('SIGKILL');
    const atKill = billsOf(h.ai.ledger(), jobId);
    expect(atKill).toEqual({
      'classify:page-01': 1,
      'intents:page-01': 1,
      'classify:page-02': 1,
      'intents:page-02': 1,
    });
    // Still running as far as anyone can tell: nothing finished it.
    expect(await page.locator('tr[data-doc="killed.pdf"]').getAttribute('data-state')).toBe(
      'running',
    );

    const second = await h.worker('w-resume');
    let state = 'running';
    await waitFor(
      async () => {
        const row = await getJobById(h.app.database.db, jobId);
        state = row?.state ?? 'missing';
        return !['running', 'queued'].includes(state);
      },
      { timeoutMs: 60_000, message: 'the job left running' },
    ).catch(() => undefined);
    const events = await listEvents(h.app.database.db, jobId, 0);
    expect(state, `${JSON.stringify(events)}\n${second.output()}`).toBe('succeeded');
    await page
      .locator('tr[data-doc="killed.pdf"][data-state="succeeded"]')
      .waitFor({ timeout: 60_000 });
    expect(
      await page.evaluate(() => (window as unknown as { sameDocument: string }).sameDocument),
    ).toBe('yes');
    expect(billsOf(h.ai.ledger(), jobId)).toEqual(atKill);
    const job = await h.app.database.db
      .selectFrom('jobs')
      .select(['attempts', 'output'])
      .where('id', '=', jobId)
      .executeTakeFirstOrThrow();
    // At least the takeover; a starved machine (CI, two cores) can let a lease lapse once more,
    // which costs an attempt but, by the ledger check above, never a bill.
    expect(job.attempts).toBeGreaterThanOrEqual(2);
    await page.getByRole('link', { name: 'killed.pdf' }).click();
    await page.locator('.detail[data-state="succeeded"]').waitFor();
    await page.locator('[data-intent="pricing.team"]').waitFor();
    // The takeover is in the timeline: running → running (another attempt).
    expect(
      await page.locator('.timeline li', { hasText: 'running → running' }).count(),
    ).toBeGreaterThanOrEqual(1);
    await h.screenshot(page, 'killed-worker-resumed');
  });
});
