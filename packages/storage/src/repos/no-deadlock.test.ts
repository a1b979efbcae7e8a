// Catches: two transactions that write the same jobs in different orders (a worker's event
// flush and its renewal tick, two batches) waiting on each other forever — PostgreSQL aborts one
// with "deadlock detected" and the job pays an extra attempt. Every multi-job write locks its
// rows in id order first (`lockJobs`), which makes a cycle impossible.
import { formatJobId } from '@sluice/contracts';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../testing/dialects.js';
import { insertJob, lockJobs } from './jobs.js';

function barrier(n: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return async () => {
    if (++arrived === n) open();
    await opened;
  };
}

describeEachDialect('multi-job writes never deadlock', (ctx) => {
  it('opposite write orders deadlock without ordered locks and never with them', async (t) => {
    const test = ctx();
    if (test.dialect === 'sqlite')
      return t.skip('SQLite writers are serialised by BEGIN IMMEDIATE: no row locks, no cycles');
    const { database } = test;
    const [a, b] = [formatJobId('v1'), formatJobId('v1')].sort() as [string, string];
    for (const id of [a, b]) {
      await database.transaction((tx) =>
        insertJob(tx, {
          id,
          tenantId: 'acme',
          kind: 'a.b',
          version: 'v1',
          input: {},
          inputHash: 'h',
          maxAttempts: 1,
        }),
      );
    }
    const touch = (tx: Parameters<Parameters<typeof database.transaction>[0]>[0], id: string) =>
      tx
        .updateTable('jobs')
        .set((eb) => ({ last_seq: eb('last_seq', '+', 0) }))
        .where('id', '=', id)
        .execute();
    const run = async (ordered: boolean) => {
      const meet = barrier(2);
      const write = (first: string, second: string) =>
        database.transaction(async (tx) => {
          if (ordered) await lockJobs(tx, [second, first]);
          await touch(tx, first);
          await Promise.race([meet(), new Promise((r) => setTimeout(r, 300))]);
          await touch(tx, second);
        });
      return Promise.allSettled([write(a, b), write(b, a)]);
    };
    const unordered = await run(false);
    const errors = unordered
      .filter((r) => r.status === 'rejected')
      .map((r) => String((r as PromiseRejectedResult).reason));
    expect(errors.some((e) => /deadlock detected/.test(e))).toBe(true);
    for (let i = 0; i < 5; i++) {
      const ordered = await run(true);
      expect(ordered.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    }
  });
});
