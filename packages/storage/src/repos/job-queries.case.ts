import { formatJobId } from '@sluice/contracts';
import { expect } from 'vitest';
import { isoIn } from '../json.js';
import { repoWrite, suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { countJobsByState, listJobs, queuedBefore } from './job-queries.js';
import { insertJob, transitionJob } from './jobs.js';
import { heartbeatServed, removeServed, servedVersions } from './served-versions.js';

/** The suite, for every database (job-queries.test.ts: Node; workerd/storage-d1.test.ts: D1). */
export function jobQueriesCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);
  it('pages a tenant’s jobs newest first, filtered, with a cursor that never leaks other tenants', async () => {
    const { database } = ctx();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const id = formatJobId('v1');
      ids.push(id);
      await repoWrite(database, (tx) =>
        insertJob(
          tx,
          {
            id,
            tenantId: 'pager',
            kind: i % 2 ? 'a.odd' : 'a.even',
            version: 'v1',
            input: { i },
            inputHash: 'h',
            maxAttempts: 1,
          },
          Date.now() + i,
        ),
      );
    }
    await repoWrite(database, (tx) =>
      insertJob(
        tx,
        {
          id: formatJobId('v1'),
          tenantId: 'intruder',
          kind: 'a.odd',
          version: 'v1',
          input: {},
          inputHash: 'h',
          maxAttempts: 1,
        },
        Date.now() + 3,
      ),
    );
    await repoWrite(database, (tx) => transitionJob(tx, { id: ids[6]!, event: 'dispatch' }));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listJobs>> = await listJobs(database.db, 'pager', {
        limit: 3,
        cursor,
      });
      expect(page.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.items.map((j) => j.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    expect(
      (await listJobs(database.db, 'pager', { limit: 10, kind: 'a.odd' })).items.map((j) => j.id),
    ).toEqual([ids[5], ids[3], ids[1]]);
    expect(
      (await listJobs(database.db, 'pager', { limit: 10, state: 'queued' })).items.map((j) => j.id),
    ).toEqual([ids[6]]);
    expect(
      (await listJobs(database.db, 'pager', { limit: 10, cursor: 'garbage' })).items,
    ).toHaveLength(7);
    const counts = await countJobsByState(database.db);
    expect(counts.queued).toBeGreaterThanOrEqual(1);
    expect(counts.accepted).toBeGreaterThanOrEqual(7);
    expect(counts.succeeded).toBe(0);
    expect(await queuedBefore(database.db, 'a.even', 'v1', isoIn(60_000))).toEqual([ids[6]]);
    expect(await queuedBefore(database.db, 'a.even', 'v1', isoIn(-60_000))).toEqual([]);
  });

  it('knows which versions live workers serve', async () => {
    const db = ctx().database.db;
    const t0 = Date.now();
    await heartbeatServed(db, 'w1', [{ kind: 'r.k', version: 'v1' }], 1000, t0);
    await heartbeatServed(
      db,
      'w2',
      [
        { kind: 'r.k', version: 'v1' },
        { kind: 'r.k', version: 'v2' },
      ],
      1000,
      t0,
    );
    expect(await servedVersions(db, 'r.k', t0)).toEqual(['v1', 'v2']);
    expect(await servedVersions(db, 'other.k', t0)).toEqual([]);
    await removeServed(db, 'w2');
    expect(await servedVersions(db, 'r.k', t0)).toEqual(['v1']);
    expect(await servedVersions(db, 'r.k', t0 + 2000)).toEqual([]);
    await heartbeatServed(db, 'w1', [{ kind: 'r.k', version: 'v1' }], 1000, t0 + 2000);
    expect(await servedVersions(db, 'r.k', t0 + 2500)).toEqual(['v1']);
  });
  done();
}
