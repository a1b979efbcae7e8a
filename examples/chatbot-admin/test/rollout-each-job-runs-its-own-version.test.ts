// The v1 → v2 rollout of `document.analyze` at 50 %: the gateway picks each document's version
// at accept (a hash of tenant, kind and idempotency key), the worker serves both, and every job
// is run by its own version's handler only — the job row, every progress event and the output
// name the same version, and only v2's knowledge-base entries carry keywords. In Chromium, the
// documents list and the detail page show each document's version.
import { createSluiceClient, type JobWatchEvent } from '@sluice/client';
import { chooseVersion, parseJobId } from '@sluice/contracts';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentAnalyze, type Jobs } from '../src/jobs.js';
import { billsOf } from '../src/provider/ledger.js';
import { makePdf, makeXlsx } from './documents.js';
import { startHarness, type Harness } from './harness.js';

const ROLLOUT = 50;
type AnalyzeEvent = JobWatchEvent<Jobs['document.analyze']>;

/** The first `n` idempotency keys the gateway's hash sends to `version` for this tenant. */
function keysFor(tenant: string, version: 'v1' | 'v2', n: number): string[] {
  const rollout = { ...documentAnalyze.versions, rolloutPercent: ROLLOUT };
  const keys: string[] = [];
  for (let i = 0; keys.length < n; i++) {
    const key = `rollout-doc-${i}`;
    if (chooseVersion(`${tenant}\u0000document.analyze\u0000${key}`, rollout) === version)
      keys.push(key);
  }
  return keys;
}

describe('document.analyze v1 → v2 rollout', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ rolloutPercent: ROLLOUT });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('a job is run only by the handler of the version it was accepted with; both versions complete', async () => {
    const client = createSluiceClient<Jobs>({ url: h.app.url, apiKey: h.key('acme'), WebSocket });
    try {
      const docs = [
        { name: 'prices-a.pdf', bytes: await makePdf(), key: keysFor('acme', 'v1', 2)[0]! },
        { name: 'shipping-a.xlsx', bytes: await makeXlsx(), key: keysFor('acme', 'v1', 2)[1]! },
        { name: 'prices-b.pdf', bytes: await makePdf(), key: keysFor('acme', 'v2', 2)[0]! },
        { name: 'shipping-b.xlsx', bytes: await makeXlsx(), key: keysFor('acme', 'v2', 2)[1]! },
      ];
      const handles = [];
      for (const doc of docs) {
        const file = await client.upload(doc.bytes, { filename: doc.name });
        handles.push(
          await client.submit(
            'document.analyze',
            { fileId: file.id, filename: doc.name },
            { fileIds: [file.id], idempotencyKey: doc.key },
          ),
        );
      }
      const versions: Record<string, string> = {};
      for (const [i, job] of handles.entries()) {
        const events: AnalyzeEvent[] = [];
        for await (const event of job.watch()) events.push(event);
        const out = await job.result();
        const row = await h.app.database.db
          .selectFrom('jobs')
          .select(['version', 'state'])
          .where('id', '=', job.id)
          .executeTakeFirstOrThrow();
        const version = row.version;
        versions[docs[i]!.name] = version;
        expect(row.state).toBe('succeeded');
        expect(parseJobId(job.id)?.version).toBe(version);
        expect((await client.jobs.get(job.id)).version).toBe(version);
        const progress = events.flatMap((e) => (e.type === 'progress' ? [e.data] : []));
        expect(progress.length).toBeGreaterThan(3);
        // Every report of the job came from its own version's handler, none from the other.
        expect(new Set(progress.map((p) => p.analyzer))).toEqual(new Set([version]));
        expect(out.analyzer).toBe(version);
        // The visible difference: v2 asks for keywords and keeps them, v1 does not.
        for (const unit of out.units) {
          if (version === 'v2') expect(unit.keywords?.length, unit.key).toBeGreaterThan(0);
          else expect(unit.keywords, unit.key).toBeUndefined();
        }
        // The same calls per unit in both versions, each billed once.
        for (const [call, n] of Object.entries(billsOf(h.ai.ledger(), job.id)))
          expect(n, call).toBe(1);
      }
      // The hash sent two documents to each version, and both versions finished theirs.
      expect(versions).toEqual({
        'prices-a.pdf': 'v1',
        'shipping-a.xlsx': 'v1',
        'prices-b.pdf': 'v2',
        'shipping-b.xlsx': 'v2',
      });
      const v2Pdf = await handles[2]!.result();
      expect(v2Pdf.units.find((u) => u.key === 'page-01')?.keywords).toContain('month');

      // The operator sees each document's version in the list and on its page.
      const page = await h.signIn('acme');
      for (const [name, version] of Object.entries(versions)) {
        const cell = page.locator(`tr[data-doc="${name}"][data-state="succeeded"] td.version`);
        await cell.waitFor();
        expect(await cell.textContent()).toBe(version);
      }
      await h.screenshot(page, 'documents-two-versions');
      await page.goto(`${h.app.url}/#/documents/${encodeURIComponent(handles[2]!.id)}`);
      await page.locator('.detail[data-state="succeeded"]').waitFor();
      expect(await page.locator('.detail .version').textContent()).toBe('v2');
      expect(await page.locator('.keywords li[data-unit="page-01"]').textContent()).toContain(
        'month',
      );
      await h.screenshot(page, 'document-detail-v2');
      await page.goto(`${h.app.url}/#/documents/${encodeURIComponent(handles[0]!.id)}`);
      await page.locator('.detail[data-state="succeeded"]').waitFor();
      expect(await page.locator('.detail .version').textContent()).toBe('v1');
      expect(await page.locator('.keywords').count()).toBe(0);
      expect(h.problems).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
