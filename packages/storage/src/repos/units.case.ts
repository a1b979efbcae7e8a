// Catches a batched read of many jobs' checkpoints that differs from the one-job read (getUnits).
import { formatJobId } from '@sluice/contracts';
import { expect } from 'vitest';
import type { SluiceDatabase } from '../database.js';
import { repoWrite, suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { insertJob, transitionJob } from './jobs.js';
import { getUnits, getUnitsOfJobs, storeUnitResult } from './units.js';

async function runningJob(database: SluiceDatabase) {
  const id = formatJobId('v1');
  await repoWrite(database, async (tx) => {
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
  const r = await repoWrite(database, (tx) => transitionJob(tx, { id, event: 'start' }));
  if (!r.ok) throw new Error('start failed');
  return r.job;
}

/** The suite, for every database (units.test.ts: Node; workerd/storage-d1.test.ts: D1). */
export function unitsCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);
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
  done();
}
