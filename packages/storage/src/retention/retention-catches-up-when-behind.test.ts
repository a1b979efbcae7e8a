// A sweep that is behind works without pauses: when even the least overdue job of a batch was due
// longer ago than `catchUpAfterMs`, the next batch follows at once; a sweep keeping up (its jobs
// barely due) pauses between batches as before. SQLite and PostgreSQL, pauses recorded.
import { createRetentionPolicy, parseRetentionSettings } from '@sluice/contracts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, expect, it } from 'vitest';
import { createLocalBlobStore } from '../blobs/local-blob-store.js';
import { describeEachDialect } from '../testing/dialects.js';
import { RETENTION_SUITE_TABLES, seedJob } from '../testing/retention-seed.js';
import { sweepRetention } from './retention-sweep.js';

const DAY = 86_400_000;
const policy = createRetentionPolicy({}, parseRetentionSettings({ default: { failed: '30d' } }));

describeEachDialect('retention catch-up', (ctx) => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-retention-catchup-'));
  const blobs = createLocalBlobStore(root);
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  beforeEach(async () => {
    for (const table of [...RETENTION_SUITE_TABLES].reverse())
      await ctx().database.db.deleteFrom(table).execute();
  });

  /** Six failed jobs, each `overdueMs` past its 30 days, and a pass over them 2 at a time. */
  async function pass(overdueMs: number, catchUpAfterMs: number) {
    const now = Date.now();
    for (let i = 0; i < 6; i++)
      await seedJob(ctx().database.db, blobs, {
        tenant: `catchup${i % 2}`,
        state: 'failed',
        ageMs: 30 * DAY + overdueMs + i,
        now,
        full: false,
      });
    const pauses: number[] = [];
    const result = await sweepRetention({
      database: ctx().database,
      blobs,
      policy,
      now,
      batchSize: 2,
      pauseMs: 9,
      catchUpAfterMs,
      sleep: async (ms) => void pauses.push(ms),
    });
    return { result, pauses };
  }

  it('behind (jobs due 10 days ago, threshold 1 day): no pause between batches', async () => {
    const { result, pauses } = await pass(10 * DAY, DAY);
    expect(result).toMatchObject({ jobs: 6, batches: 3, complete: true });
    expect(pauses).toEqual([]);
  });

  it('keeping up (jobs due a minute ago, threshold 1 day): a pause between batches', async () => {
    const { result, pauses } = await pass(60_000, DAY);
    expect(result).toMatchObject({ jobs: 6, batches: 3, complete: true });
    // At least one between each two batches (one more may come before the read that finds none).
    expect(pauses.length).toBeGreaterThanOrEqual(2);
    expect(new Set(pauses)).toEqual(new Set([9]));
  });
});
