// The operator's requeue of a failed document, on its page, in Chromium. The fake provider's
// `async-fail` knob fails page 2's intent job once: the document ends `failed`. A tenant's plain
// login sees no Requeue button on the document page; acme's operator login (scope `jobs:manage`)
// does, requeues, and the page shows the answer (the job `queued` again) while the document runs
// on to `succeeded`: page 1 from its checkpoint, and no call that had an answer billed again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billsOf } from '../src/provider/ledger.js';
import { makePdf } from './documents.js';
import { startHarness, type Harness } from './harness.js';

const row = (name: string, state?: string) =>
  `tr[data-doc="${name}"]${state ? `[data-state="${state}"]` : ''}`;

describe('requeue of a failed document in Chromium', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('only an operator sees Requeue on a failed document; it shows the result and the document completes', async () => {
    await h.ai.setFaults([{ fault: 'async-fail', call: 'intents', unitKey: 'page-02', times: 1 }]);
    const plain = await h.signIn('acme');
    await plain
      .locator('input[type=file]')
      .setInputFiles([
        { name: 'failing.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await makePdf()) },
      ]);
    const failed = plain.locator(row('failing.pdf', 'failed'));
    await failed.waitFor({ timeout: 60_000 });
    const jobId = (await failed.getAttribute('data-job'))!;
    await plain.goto(`${h.app.url}/#/documents/${encodeURIComponent(jobId)}`);
    await plain.locator('.detail[data-state="failed"] .cause').waitFor();
    expect(await plain.getByRole('button', { name: 'Requeue' }).count()).toBe(0);
    const before = billsOf(h.ai.ledger(), jobId);

    const operator = await h.signIn('acme', { operator: true });
    await operator.goto(`${h.app.url}/#/documents/${encodeURIComponent(jobId)}`);
    const detail = operator.locator('.detail[data-state="failed"]');
    await detail.waitFor();
    await detail.getByRole('button', { name: 'Requeue' }).click();
    const result = operator.locator('.requeue-result[role="status"]');
    await result.waitFor();
    expect(await result.getAttribute('data-state')).toBe('queued');
    expect(await result.textContent()).toContain('queued again');
    await h.screenshot(operator, 'document-requeued');

    // Live: the page follows the requeued job to its end, the answer still shown.
    await operator.locator('.detail[data-state="succeeded"]').waitFor({ timeout: 60_000 });
    await result.waitFor();
    expect(await operator.getByRole('button', { name: 'Requeue' }).count()).toBe(0);
    expect(await operator.locator('.timeline').textContent()).toContain(
      'unit page-01 done (reused)',
    );
    // Every call that had an answer before the requeue was answered from the ledger.
    const after = billsOf(h.ai.ledger(), jobId);
    for (const call of ['classify:page-01', 'intents:page-01', 'classify:page-02']) {
      expect(after[call]).toBe(before[call]);
    }
    const stored = await h.app.database.db
      .selectFrom('jobs')
      .select('state')
      .where('id', '=', jobId)
      .executeTakeFirstOrThrow();
    expect(stored.state).toBe('succeeded');
    expect(h.problems).toEqual([]);
  });
});
