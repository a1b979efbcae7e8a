// A pass that stops at maxBatches with expired jobs left is followed by the next one after a
// pause, not after a whole interval: before, removal was capped at maxBatches × batchSize per
// interval (333 jobs/s at the defaults), below what one gateway accepts. With one job per pass
// and passes every second, eleven expired jobs took eleven seconds; they must go in a few.
import { createLocalBlobStore } from '@sluice/storage';
import { createTestDatabase, seedJob, type TestDatabase } from '@sluice/storage/testing';

import { waitFor } from '@sluice/testkit';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger, testJobs } from '../testing/fixture.js';
import { createRetentionSweeper, type RetentionSweeper } from './retention-sweeper.js';
import { resolveRetention } from './run-retention-pass.js';

const DAY = 86_400_000;
let t: TestDatabase;
let sweeper: RetentionSweeper | undefined;
const root = mkdtempSync(join(tmpdir(), 'sluice-retention-again-'));

beforeAll(async () => {
  t = await createTestDatabase('sqlite');
});
afterAll(async () => {
  await sweeper?.close();
  await t?.dispose();
  rmSync(root, { recursive: true, force: true });
});

const left = async () =>
  (await t.database.db.selectFrom('jobs').select('id').where('tenant_id', '=', 'again').execute())
    .length;

it('an incomplete pass goes on after its pause, not after the next interval', async () => {
  const blobs = createLocalBlobStore(root);
  const now = Date.now();
  for (let i = 0; i < 11; i++)
    await seedJob(t.database.db, blobs, {
      tenant: 'again',
      state: 'failed',
      ageMs: 3 * DAY + i,
      now,
      full: false,
    });
  expect(await left()).toBe(11);
  sweeper = createRetentionSweeper({
    database: t.database,
    blobs,
    retention: resolveRetention(testJobs, {
      default: { failed: '1d' },
      everyMs: 1000,
      batchSize: 1,
      maxBatches: 1,
      pauseMs: 0,
    }),
    registry: new Registry(),
    logger: silentLogger,
  });
  sweeper.start();
  // The first pass comes with the first interval tick and removes one job.
  await waitFor(async () => (await left()) < 11 || undefined, { timeoutMs: 5000 });
  const first = Date.now();
  // Ten more passes of one job each: at one pass per interval that is 10 s.
  await waitFor(async () => (await left()) === 0 || undefined, {
    timeoutMs: 6000,
    message: `all eleven removed (still ${await left()} at the start of the wait)`,
  });
  expect(Date.now() - first).toBeLessThan(6000);
});
