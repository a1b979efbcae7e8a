// The human step, in Chromium: a document submitted with "Ask for approval" is converted for
// free and then waits — no provider bill — until a person opens the approval link (a fresh
// browser context, no login, no API key) and decides. Approve bills each unit once, after the
// click, and the link is then used up (a replayed POST answers 409); reject fails the document
// with its cause and bills nothing. Billing is read from the fake provider's own ledger.
// Screenshots: test-artifacts/documents-waiting-for-approval.png, approval-link.png.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billsOf } from '../src/provider/ledger.js';
import { makePdf } from './documents.js';
import { startHarness, type Harness } from './harness.js';

const row = (name: string, state?: string) =>
  `tr[data-doc="${name}"]${state ? `[data-state="${state}"]` : ''}`;

describe('the approval link gates the paid analysis', () => {
  let h: Harness;
  let acme: Page;

  beforeAll(async () => {
    h = await startHarness();
    acme = await h.signIn('acme');
    await acme.getByLabel('Ask for approval before the paid analysis').check();
  });

  afterAll(async () => {
    await h?.close();
  });

  /** Uploads a PDF as `name`; resolves when its row waits with an approval link. */
  async function uploadWaiting(name: string) {
    await acme
      .locator('input[type=file]')
      .setInputFiles([{ name, mimeType: 'application/pdf', buffer: Buffer.from(await makePdf()) }]);
    const waiting = acme.locator(`${row(name, 'waiting')} a.approve-link`);
    await waiting.waitFor({ timeout: 30_000 });
    const jobId = (await acme.locator(row(name)).getAttribute('data-job'))!;
    return { jobId, href: (await waiting.getAttribute('href'))! };
  }

  /** The approval page as someone holding only the link sees it: a fresh context, no login. */
  async function openLink(href: string) {
    const context = await h.browser.newContext();
    const page = await context.newPage();
    const authorized: string[] = [];
    page.on('request', (r) => r.headers()['authorization'] && authorized.push(r.url()));
    page.on('pageerror', (e) => h.problems.push(`approval: ${e.message}`));
    await page.goto(`${h.app.url}/${href}`);
    await page.locator('[data-approval="open"]').waitFor();
    return { page, authorized, close: () => context.close() };
  }

  it('nothing is billed while waiting; approve bills each unit once after the click; a replayed token is refused 409', async () => {
    const { jobId, href } = await uploadWaiting('approve-me.pdf');
    // The job holds nothing while it waits; give a wrongly ungated worker time to bill.
    await sleep(1_000);
    expect(billsOf(h.ai.ledger(), jobId)).toEqual({});
    expect(
      (
        await h.app.database.db
          .selectFrom('jobs')
          .select('state')
          .where('id', '=', jobId)
          .executeTakeFirstOrThrow()
      ).state,
    ).toBe('waiting');

    await h.screenshot(acme, 'documents-waiting-for-approval');
    const link = await openLink(href);
    await h.screenshot(link.page, 'approval-link');
    const clickedAt = new Date().toISOString();
    await link.page.getByRole('button', { name: 'Approve' }).click();
    await link.page.locator('[data-approval="approved"]').waitFor();
    await acme.locator(row('approve-me.pdf', 'succeeded')).waitFor({ timeout: 30_000 });

    const bills = h.ai.ledger().filter((b) => b.jobId === jobId);
    expect(billsOf(bills, jobId)).toEqual({
      'classify:page-01': 1,
      'classify:page-02': 1,
      'intents:page-01': 1,
      'intents:page-02': 1,
    });
    expect(bills.every((b) => b.at >= clickedAt)).toBe(true);
    expect(link.authorized).toEqual([]);

    // The same token again: used once, refused now, and nothing more is billed.
    const token = href.split('/').pop()!;
    const replay = await link.page.evaluate(async (t) => {
      const res = await fetch(`/v1/tokens/${t}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ payload: { approved: true } }),
      });
      return { status: res.status, body: (await res.json()) as { error: { code: string } } };
    }, token);
    expect(replay).toMatchObject({ status: 409, body: { error: { code: 'TOKEN_USED' } } });
    await link.page.reload();
    await link.page.locator('[data-approval="used"]').waitFor();
    expect(h.ai.ledger().filter((b) => b.jobId === jobId)).toHaveLength(4);
    await link.close();
  });

  it('reject fails the document with ANALYSIS_REJECTED and bills nothing', async () => {
    const { jobId, href } = await uploadWaiting('reject-me.pdf');
    const link = await openLink(href);
    await link.page.getByRole('button', { name: 'Reject' }).click();
    await link.page.locator('[data-approval="rejected"]').waitFor();
    const cause = acme.locator(`${row('reject-me.pdf', 'failed')} .cause`);
    await cause.waitFor({ timeout: 30_000 });
    expect(await cause.textContent()).toMatch(/^NON_RETRIABLE: ANALYSIS_REJECTED: /);
    expect(billsOf(h.ai.ledger(), jobId)).toEqual({});
    expect(link.authorized).toEqual([]);
    expect(h.problems).toEqual([]);
    await link.close();
  });
});
