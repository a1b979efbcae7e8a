// Catches a retention sweep that removes a job still on its way or waiting for a person: a
// filter that lets `running` or `needs_review` through (the seeded bug
// `retention-removes-live-jobs` counts them as failed) would delete a job a worker is running
// or a person must still decide. Jobs in every state, all far older than any retention, and
// held ones, go through a real gateway's pass: only the unheld ended ones may go, and every
// other job keeps every row and every blob it had.
import { JOB_STATES, RETENTION_STATES, type JobState } from '@sluice/contracts';
import {
  blobIntegrity,
  blobKeys,
  countRows,
  describeEachDialect,
  seedJob,
} from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';

const YEAR = 365 * 86_400_000;
const LIVE: readonly JobState[] = JOB_STATES.filter(
  (s) => !(RETENTION_STATES as readonly string[]).includes(s),
);

describeEachDialect('retention never removes a live, reviewed or held job', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f?.close();
  });

  it('a pass over jobs years past every retention removes only the unheld ended ones', async () => {
    expect([...LIVE].sort()).toEqual(
      ['accepted', 'needs_review', 'queued', 'running', 'scheduled', 'waiting'].sort(),
    );
    const db = ctx().database.db;
    const now = Date.now();
    const seed = (tenant: string, state: JobState, hold = false) =>
      seedJob(db, f.blobs, { tenant, state, ageMs: 3 * YEAR, now, hold });
    const live = await Promise.all(LIVE.map((s) => seed('keep-live', s)));
    const held = await Promise.all(RETENTION_STATES.map((s) => seed('keep-held', s, true)));
    const ended = await Promise.all(RETENTION_STATES.map((s) => seed('gone', s)));
    const kept = ['keep-live', 'keep-held'];
    const rowsBefore = await countRows(db, kept);
    const keysBefore = await blobKeys(f.blobs, kept);

    const result = await f.gateway.sweepRetention(now);

    expect(await countRows(db, kept)).toEqual(rowsBefore);
    expect(await blobKeys(f.blobs, kept)).toEqual(keysBefore);
    const left = await db.selectFrom('jobs').select(['id', 'state']).execute();
    for (const j of [...live, ...held]) expect(left.map((r) => r.id)).toContain(j.id);
    expect(result?.jobs).toBe(ended.length);
    expect((await countRows(db, ['gone'])).jobs).toBe(0);
    expect(await blobIntegrity(db, f.blobs, [...kept, 'gone'])).toEqual({
      dangling: [],
      unknown: [],
      queued: 0,
    });
  });
});
