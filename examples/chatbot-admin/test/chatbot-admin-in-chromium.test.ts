// The chatbot admin as its users meet it: Debian's Chromium (playwright-core) on the production
// build, a real gateway and worker on SQLite, the fake AI provider as its own process. Billing is
// counted from the provider's own ledger, never from what the worker says.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSluiceClient } from '@sluice/client';
import type { Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Jobs } from '../src/jobs.js';
import { billsOf } from '../src/provider/ledger.js';
import { makePdf, makeXlsx } from './documents.js';
import { startHarness, type Harness } from './harness.js';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** Page 2's cause when its intent job failed at the provider: the unit, the code, the message. */
const INTENT_JOB_FAILED =
  /^page-02: NON_RETRIABLE call "intents" of unit "page-02" \(fake-ai\/text, pollable\): the provider's job [0-9a-f-]{36} failed$/;
const row = (name: string, state?: string) =>
  `tr[data-doc="${name}"]${state ? `[data-state="${state}"]` : ''}`;

async function ask(page: Page, question: string, intent: string) {
  await page.getByLabel('Question').fill(question);
  await page.getByRole('button', { name: 'Ask' }).click();
  const answer = page.locator(`.chat-log .a[data-intent="${intent}"]`).last();
  await answer.waitFor();
  return (await answer.textContent()) ?? '';
}

describe('chatbot admin in Chromium', () => {
  let h: Harness;
  let acme: Page;
  const shots: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    acme = await h.signIn('acme');
  });

  afterAll(async () => {
    console.info(`screenshots:\n  ${shots.join('\n  ')}`);
    await h?.close();
  });

  it('a PDF and an XLSX are analysed live without a reload; tables, intents and chat answers come from them', async () => {
    // Page 2's intent job takes 2.5 s, so the list is seen mid-analysis.
    await h.ai.setFaults([{ fault: 'slow', call: 'intents', unitKey: 'page-02', delayMs: 2500 }]);
    await acme.evaluate(
      () => ((window as unknown as { sameDocument: string }).sameDocument = 'yes'),
    );
    await acme.locator('input[type=file]').setInputFiles([
      { name: 'prices.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf()) },
      { name: 'shipping.xlsx', mimeType: XLSX_TYPE, buffer: Buffer.from(await makeXlsx()) },
    ]);
    // Live per-unit progress: one of the PDF's two pages done while the job runs.
    await acme
      .locator(
        `${row('prices.pdf', 'running')} .unit-progress[data-units-done="1"][data-units="2"]`,
      )
      .waitFor({ timeout: 30_000 });
    shots.push(await h.screenshot(acme, 'documents-live'));
    await acme.locator(row('prices.pdf', 'succeeded')).waitFor({ timeout: 30_000 });
    await acme.locator(row('shipping.xlsx', 'succeeded')).waitFor({ timeout: 30_000 });
    expect(
      await acme.locator(`${row('prices.pdf')} .unit-progress`).getAttribute('data-units-done'),
    ).toBe('2');
    // The same document all along: the page was never reloaded.
    expect(
      await acme.evaluate(() => (window as unknown as { sameDocument: string }).sameDocument),
    ).toBe('yes');
    shots.push(await h.screenshot(acme, 'documents'));

    await acme.getByRole('link', { name: 'prices.pdf' }).click();
    await acme.locator('.detail[data-state="succeeded"]').waitFor();
    const table = acme.locator('table.extracted[data-table="Page 1 table 1"]');
    expect(await table.locator('th').allTextContents()).toEqual(['Plan', 'Price', 'Seats']);
    expect(await table.locator('tbody tr').first().locator('td').allTextContents()).toEqual([
      'Starter',
      '9 EUR per month',
      '1',
    ]);
    await acme.locator('[data-intent="pricing.team"]').waitFor();
    await acme.locator('[data-intent="hours.support_desk_open"]').waitFor();
    // Every stored event in the timeline, in order.
    const seqs = (await acme
      .locator('.timeline li')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-seq'))))) as number[];
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    shots.push(await h.screenshot(acme, 'document-detail'));

    await acme.goto(`${h.app.url}/#/chat`);
    expect(await ask(acme, 'How much is the Team plan?', 'pricing.team')).toContain(
      'Team — Price: 49 EUR per month, Seats: 10.',
    );
    const japan = await ask(acme, 'What is the delivery time of Japan?', 'pricing.japan');
    expect(japan).toContain('9 days');
    expect(japan).toContain('shipping.xlsx');
    shots.push(await h.screenshot(acme, 'chat'));

    await acme.goto(`${h.app.url}/#/metrics`);
    await acme
      .locator('[data-jobs-state="succeeded"] td')
      .nth(1)
      .filter({ hasText: '2' })
      .waitFor();
    // One classify (ambiguous) and one intent job (pollable) per unit: 2 pages + 1 sheet.
    expect(await acme.locator('[data-calls="ambiguous/succeeded"] td').nth(2).textContent()).toBe(
      '3',
    );
    expect(await acme.locator('[data-calls="pollable/succeeded"] td').nth(2).textContent()).toBe(
      '3',
    );
    shots.push(await h.screenshot(acme, 'metrics'));
  });

  it('a lost classify answer parks the document for review; one approval in the UI bills exactly one more call', async () => {
    await h.ai.setFaults([{ fault: 'commit-then-drop', call: 'classify', unitKey: 'page-02' }]);
    await acme.goto(`${h.app.url}/#/documents`);
    await acme.locator('input[type=file]').setInputFiles([
      {
        name: 'lost-answer.pdf',
        mimeType: 'application/pdf',
        buffer: Buffer.from(await makePdf()),
      },
    ]);
    const parked = acme.locator(row('lost-answer.pdf', 'needs_review'));
    await parked.waitFor({ timeout: 30_000 });
    expect(await parked.locator('.state').textContent()).toBe('needs review');
    const jobId = (await parked.getAttribute('data-job'))!;
    const before = billsOf(h.ai.ledger(), jobId);
    expect(before['classify:page-02']).toBe(1);

    await acme.goto(`${h.app.url}/#/review`);
    const item = acme.locator(`.review-item[data-job="${jobId}"]`);
    await item.waitFor();
    expect(await item.textContent()).toContain('page-02');
    // The job's review evidence as a person reads it: which provider, unit and call are in doubt.
    const evidence = item.locator('.evidence[data-loaded="yes"]');
    await evidence.waitFor();
    expect(await evidence.textContent()).toMatch(
      /^provider fake-ai · unit page-02 · call classify \(connection dropped\) · attempts \d+$/,
    );
    expect(await item.locator('a').first().textContent()).toBe('lost-answer.pdf');
    shots.push(await h.screenshot(acme, 'review-queue'));
    await item.getByLabel('Reason').fill('provider dashboard shows no stored answer');
    await item.getByRole('button', { name: 'Approve one re-call' }).click();
    // Live: the item leaves the queue without a reload.
    await item.waitFor({ state: 'detached' });

    await acme.goto(`${h.app.url}/#/documents`);
    await acme.locator(row('lost-answer.pdf', 'succeeded')).waitFor({ timeout: 30_000 });
    const after = billsOf(h.ai.ledger(), jobId);
    const extra = Object.entries(after).reduce((n, [k, v]) => n + v - (before[k] ?? 0), 0);
    expect(after['classify:page-02']).toBe(2);
    // Everything else billed once: the approval authorised one call, and only that one.
    for (const [k, v] of Object.entries(after)) if (k !== 'classify:page-02') expect(v, k).toBe(1);
    expect(extra).toBe(1 + (before['intents:page-02'] ? 0 : 1));

    await acme.goto(`${h.app.url}/#/dead-letters`);
    await acme.getByText('No dead letters.').waitFor();
    shots.push(await h.screenshot(acme, 'dead-letters'));
  });

  it('a fault armed on the Fault knobs page fails a document for good; the list and the detail page show its cause, not its id', async () => {
    await acme.goto(`${h.app.url}/#/faults`);
    await acme.getByText('No faults armed.').waitFor();
    await acme.getByLabel('Fault').selectOption('async-fail');
    await acme.getByLabel('Call').selectOption('intents');
    await acme.getByLabel('Unit').fill('page-02');
    await acme.getByRole('button', { name: 'Arm fault' }).click();
    const armed = acme.locator('table.armed tr[data-fault="async-fail"]');
    await armed.waitFor();
    expect(await armed.locator('td').allTextContents()).toEqual([
      'async-fail',
      'intents',
      'page-02',
      '1',
    ]);
    // The provider itself holds the rule the page armed.
    const held = (await (await fetch(`${h.ai.url}/admin/faults`)).json()) as { faults: unknown };
    expect(held.faults).toMatchObject([
      { fault: 'async-fail', call: 'intents', unitKey: 'page-02', times: 1 },
    ]);
    shots.push(await h.screenshot(acme, 'fault-knobs'));

    await acme.getByRole('link', { name: 'Documents' }).click();
    await acme
      .locator('input[type=file]')
      .setInputFiles([
        { name: 'failing.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf()) },
      ]);
    const failed = acme.locator(row('failing.pdf', 'failed'));
    await failed.waitFor({ timeout: 30_000 });
    // The row says why: the unit, the error's code and its message.
    const rowCause = failed.locator('.cause');
    await rowCause.waitFor();
    expect(await rowCause.textContent()).toMatch(INTENT_JOB_FAILED);
    await acme.getByRole('link', { name: 'failing.pdf' }).click();
    const detail = acme.locator('.detail[data-state="failed"]');
    await detail.waitFor();
    // The heading is the document, not the job id; the cause is under it with its code.
    await detail.locator('h2', { hasText: 'failing.pdf' }).waitFor();
    const jobId = (await detail.getAttribute('data-job'))!;
    expect(await detail.locator('h2').textContent()).not.toContain(jobId);
    const cause = detail.locator('.cause');
    expect(await cause.getAttribute('data-code')).toBe('UNITS_FAILED');
    expect(await cause.locator('li[data-unit="page-02"]').textContent()).toMatch(INTENT_JOB_FAILED);
    shots.push(await h.screenshot(acme, 'document-failed'));

    // A rule that is not wanted any more is cleared from the page too.
    await acme.goto(`${h.app.url}/#/faults`);
    await acme.getByText('No faults armed.').waitFor();
    await acme.getByLabel('Fault').selectOption('slow');
    await acme.getByLabel('Delay (ms)').fill('1500');
    await acme.getByRole('button', { name: 'Arm fault' }).click();
    await acme.locator('table.armed tr[data-fault="slow"]', { hasText: '1500 ms' }).waitFor();
    await acme.getByRole('button', { name: 'Clear all' }).click();
    await acme.getByText('No faults armed.').waitFor();
    const cleared = (await (await fetch(`${h.ai.url}/admin/faults`)).json()) as { faults: unknown };
    expect(cleared.faults).toEqual([]);
  });

  it('a wrong-type, malformed or oversized upload, picked or dropped, shows a clear error and writes nothing', async () => {
    const files = await h.rows('files', 'acme');
    const jobs = await h.rows('jobs', 'acme');
    await acme.goto(`${h.app.url}/#/documents`);
    // From disk: an 11 MB buffer sent through the DevTools protocol takes longer than the test.
    const dir = mkdtempSync(join(tmpdir(), 'chatbot-bad-uploads-'));
    const bad = {
      'photo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
      'report.pdf': Buffer.from('just some text, not a PDF'),
      'huge.csv': Buffer.alloc(11 * 1024 * 1024, 'a,b\n'),
    };
    for (const [name, bytes] of Object.entries(bad)) writeFileSync(join(dir, name), bytes);
    await acme
      .locator('input[type=file]')
      .setInputFiles(Object.keys(bad).map((name) => join(dir, name)));
    const error = (name: string) =>
      acme.locator(`[data-upload="${name}"][data-upload-state="error"] .error`);
    await error('huge.csv').waitFor();
    expect(await error('photo.png').textContent()).toBe(
      'photo.png: only PDF, XLSX and CSV documents can be analysed',
    );
    expect(await error('report.pdf').textContent()).toBe(
      'report.pdf: not a valid PDF file (its content is CSV)',
    );
    expect(await error('huge.csv').textContent()).toBe('huge.csv: 11.0 MB is over the 10 MB limit');
    // Dropped on the drop zone: the same checks.
    const dropped = await acme.evaluateHandle(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['plain notes'], 'notes.txt', { type: 'text/plain' }));
      return transfer;
    });
    await acme.dispatchEvent('.dropzone', 'drop', { dataTransfer: dropped });
    expect(await error('notes.txt').textContent()).toBe(
      'notes.txt: only PDF, XLSX and CSV documents can be analysed',
    );
    shots.push(await h.screenshot(acme, 'upload-errors'));
    // The gateway refuses the oversized body too, if a client skips the form's check.
    const res = await fetch(`${h.app.url}/v1/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.key('acme')}`, 'content-type': 'text/csv' },
      body: Buffer.alloc(11 * 1024 * 1024, 'a,b\n'),
    });
    expect(res.status).toBe(413);
    expect(await h.rows('files', 'acme')).toBe(files);
    expect(await h.rows('jobs', 'acme')).toBe(jobs);
    rmSync(dir, { recursive: true, force: true });
  });

  it("the other tenant sees none of acme's documents, answers or jobs", async () => {
    const acmeJob = (await acme.locator(row('prices.pdf')).getAttribute('data-job'))!;
    const globex = await h.signIn('globex');
    await globex.getByText('No documents yet.').waitFor();
    await globex.goto(`${h.app.url}/#/documents/${encodeURIComponent(acmeJob)}`);
    await globex.locator('.detail').waitFor();
    expect(await globex.locator('table.extracted').count()).toBe(0);
    await globex.goto(`${h.app.url}/#/chat`);
    await globex.getByLabel('Question').fill('How much is the Team plan?');
    await globex.getByRole('button', { name: 'Ask' }).click();
    await globex.getByText("I don't know that yet").waitFor();
    await globex.goto(`${h.app.url}/#/review`);
    await globex.getByText('Nothing waits for review.').waitFor();
    shots.push(await h.screenshot(globex, 'other-tenant'));
    const client = createSluiceClient<Jobs>({ url: h.app.url, apiKey: h.key('globex'), WebSocket });
    try {
      await expect(client.jobs.get(acmeJob)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await client.jobs.list()).items).toEqual([]);
    } finally {
      await client.close();
    }
    expect(await h.rows('jobs', 'globex')).toBe(0);
    // Only the expected refusal of acme's job id: no page error anywhere else.
    expect(h.problems.filter((p) => !/NOT_FOUND|not found|404/i.test(p))).toEqual([]);
  });
});
