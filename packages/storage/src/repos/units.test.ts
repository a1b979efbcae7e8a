// Catches a group-committed checkpoint store that differs from the single-row one: each row is
// fenced by its own (job, epoch), the first stored result wins, a fenced-out attempt's row never
// gets in (even beside its successor's in the same statement), and outcomes stay in input order.
import { formatJobId } from '@sluice/contracts';
import { expect, it } from 'vitest';
import type { SluiceDatabase } from '../database.js';
import { describeEachDialect } from '../testing/dialects.js';
import { insertJob, transitionJob } from './jobs.js';
import { getUnits, getUnitsOfJobs, storeUnitResult } from './units.js';

async function runningJob(database: SluiceDatabase) {
  const id = formatJobId('v1');
  await database.transaction(async (tx) => {
    await insertJob(tx, {
      id,
      tenantId: 'acme',
      kind: 'x.units',
      version: 'v1',
      input: {},
      inputHash: 'h',
      maxAttempts: 3,
    });
    await transitionJob(tx, { id, event: 'dispatch' });
  });
  const r = await database.transaction((tx) => transitionJob(tx, { id, event: 'start' }));
  if (!r.ok) throw new Error('start failed');
  return r.job;
}

describeEachDialect('getUnitsOfJobs', (ctx) => {
  it('answers for each job exactly what getUnits answers, an empty map for a job without units', async () => {
    const { database } = ctx();
    const [a, b, c] = [
      await runningJob(database),
      await runningJob(database),
      await runningJob(database),
    ];
    const at = (j: typeof a) => ({ jobId: j.id, attemptId: j.attemptId!, epoch: j.epoch });
    for (const unit of [
      { ...at(a), unitKey: 'u0', result: 'a0' },
      { ...at(a), unitKey: 'u1', result: { n: 1 } },
      { ...at(b), unitKey: 'u0', result: null },
    ])
      expect(await storeUnitResult(database.db, unit)).toBe('stored');
    const all = await getUnitsOfJobs(database.db, [a.id, b.id, c.id, a.id]);
    expect([...all.keys()].sort()).toEqual([a.id, b.id, c.id].sort());
    for (const j of [a, b, c]) expect(all.get(j.id)).toEqual(await getUnits(database.db, j.id));
    expect(all.get(a.id)?.size).toBe(2);
    expect(all.get(c.id)?.size).toBe(0);
  });
});
