// Dead letters end to end in Chromium. The fake provider's `fail-poll` knob makes every poll of
// page 2's intent job answer 503: nothing billed, the intent job itself runs on. Polls never
// bill, so the worker polls again, then retries the job, and with its attempts spent
// dead-letters it (`fail-before` and `async-fail` cannot get here: a 503 on a billed request
// leaves doubt, so review; a failed intent job is a known outcome, so failed for good). The
// operator sees the document with reason and attempts on the dead-letters page, the fault is
// turned off, requeue in the UI, and the document completes: page 1 from its checkpoint, page 2's
// classify answer from the call ledger and its intent job polled by its recorded id. The
// provider's own ledger is unchanged by all of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billsOf } from '../src/provider/ledger.js';
import { makePdf } from './documents.js';
import { startHarness, type Harness } from './harness.js';

const row = (name: string, state?: string) =>
  `tr[data-doc="${name}"]${state ? `[data-state="${state}"]` : ''}`;

describe('dead letters in Chromium', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('a dead-lettered document is requeued in the UI and completes; no call that succeeded is billed again', async () => {
    await h.ai.setFaults([
      { fault: 'fail-poll', call: 'intents', unitKey: 'page-02', times: 10_000 },
    ]);
    const acme = await h.signIn('acme');
    await acme
      .locator('input[type=file]')
      .setInputFiles([
        { name: 'outage.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf()) },
      ]);
    const dead = acme.locator(row('outage.pdf', 'dead_lettered'));
    await dead.waitFor({ timeout: 60_000 });
    const jobId = (await dead.getAttribute('data-job'))!;
    const job = await h.app.database.db
      .selectFrom('jobs')
      .select(['attempts', 'max_attempts', 'reason'])
      .where('id', '=', jobId)
      .executeTakeFirstOrThrow();
    expect(job.attempts).toBe(job.max_attempts);
    expect(job.reason).toBeTruthy();
    // Every call of the job billed exactly once before it was dead-lettered: page 2's intent
    // job was submitted (and billed) once, only its polls failed.
    const before = billsOf(h.ai.ledger(), jobId);
    expect(before).toEqual({
      'classify:page-01': 1,
      'intents:page-01': 1,
      'classify:page-02': 1,
      'intents:page-02': 1,
    });

    await acme.goto(`${h.app.url}/#/dead-letters`);
    const letter = acme.locator(`.dead-letters tr[data-job="${jobId}"][data-doc="outage.pdf"]`);
    await letter.waitFor();
    expect(await letter.locator('.reason').textContent()).toContain(job.reason!);
    expect(await letter.locator('.reason').textContent()).toContain('intents');
    expect(await letter.locator('.attempts').textContent()).toBe(
      `${job.max_attempts}/${job.max_attempts}`,
    );
    const shot = await h.screenshot(acme, 'dead-letters-outage');
    console.info(`screenshot: ${shot}`);

    // The provider's status service is back; the operator requeues.
    await h.ai.setFaults([]);
    await letter.getByRole('button', { name: 'Requeue' }).click();
    // Live: the row leaves the list without a reload.
    await letter.waitFor({ state: 'detached' });
    await acme.getByText('No dead letters.').waitFor();

    await acme.goto(`${h.app.url}/#/documents`);
    await acme.locator(row('outage.pdf', 'succeeded')).waitFor({ timeout: 60_000 });
    await acme.getByRole('link', { name: 'outage.pdf' }).click();
    await acme.locator('.detail[data-state="succeeded"]').waitFor();
    // Page 2's intents came from the intent job submitted before the outage.
    await acme.locator('[data-intent="hours.support_desk_open"]').waitFor();
    const timeline = await acme.locator('.timeline').textContent();
    expect(timeline).toContain('dead_lettered');
    expect(timeline).toContain('unit page-01 done (reused)');
    expect(billsOf(h.ai.ledger(), jobId)).toEqual(before);
    expect(h.problems).toEqual([]);
  });
});
