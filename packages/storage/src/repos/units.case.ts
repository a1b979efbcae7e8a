// Catches a group-committed checkpoint store that differs from the single-row one: each row is
// fenced by its own (job, epoch), the first stored result wins, a fenced-out attempt's row never
// gets in (even beside its successor's in the same statement), and outcomes stay in input order.
import { formatJobId } from '@sluice/contracts';
import { expect } from 'vitest';
import type { SluiceDatabase } from '../database.js';
import { repoWrite, suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { insertJob, transitionJob } from './jobs.js';
import { getUnit, getUnits, getUnitsOfJobs, storeUnitResult, storeUnitResults } from './units.js';

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
  it('answers stored / exists / fenced per row, like storeUnitResult', async () => {
    const { database } = ctx();
    const [a, b, c] = [
      await runningJob(database),
      await runningJob(database),
      await runningJob(database),
    ];
    const at = (j: typeof a) => ({ jobId: j.id, attemptId: j.attemptId!, epoch: j.epoch });
    expect(await storeUnitResult(database.db, { ...at(a), unitKey: 'u0', result: 'first' })).toBe(
      'stored',
    );
    // c is finished: its attempt no longer holds it.
    await repoWrite(database, (tx) =>
      transitionJob(tx, { id: c.id, event: 'succeed', epoch: c.epoch, output: null }),
    );
    const outcomes = await storeUnitResults(database.db, [
      { ...at(a), unitKey: 'u0', result: 'second' },
      { ...at(a), unitKey: 'u1', result: { n: 1 } },
      { ...at(b), unitKey: 'u0', result: null },
      { ...at(b), unitKey: 'big', assetKey: 'assets/k' },
      { ...at(c), unitKey: 'u0', result: 'late' },
      { ...at(b), epoch: b.epoch + 1, unitKey: 'u9', result: 'future' },
    ]);
    expect(outcomes).toEqual(['exists', 'stored', 'stored', 'stored', 'fenced', 'fenced']);
    expect((await getUnit(database.db, a.id, 'u0'))?.result).toBe('first');
    expect((await getUnit(database.db, a.id, 'u1'))?.result).toEqual({ n: 1 });
    expect(await getUnit(database.db, b.id, 'u0')).toMatchObject({ result: null, epoch: b.epoch });
    expect(await getUnit(database.db, b.id, 'big')).toMatchObject({ assetKey: 'assets/k' });
    expect(await getUnit(database.db, c.id, 'u0')).toBeUndefined();
    expect(await getUnit(database.db, b.id, 'u9')).toBeUndefined();
    expect(await storeUnitResults(database.db, [])).toEqual([]);
  });

  it('a fenced-out attempt and its successor in one statement: only the live row gets in', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    await repoWrite(database, (tx) =>
      transitionJob(tx, { id: job.id, event: 'retry', epoch: job.epoch }),
    );
    const next = await repoWrite(database, (tx) =>
      transitionJob(tx, { id: job.id, event: 'start' }),
    );
    if (!next.ok) throw new Error('restart failed');
    const old = { jobId: job.id, attemptId: job.attemptId!, epoch: job.epoch };
    const live = { jobId: job.id, attemptId: next.job.attemptId!, epoch: next.job.epoch };
    expect(
      await storeUnitResults(database.db, [
        { ...old, unitKey: 'u0', result: 'zombie' },
        { ...live, unitKey: 'u0', result: 'live' },
      ]),
    ).toEqual(['exists', 'stored']);
    expect(await getUnit(database.db, job.id, 'u0')).toMatchObject({
      result: 'live',
      epoch: next.job.epoch,
    });
  });

  it('stores more rows than one statement carries', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const a = { jobId: job.id, attemptId: job.attemptId!, epoch: job.epoch };
    const units = Array.from({ length: 1203 }, (_, i) => ({ ...a, unitKey: `u${i}`, result: i }));
    const outcomes = await storeUnitResults(database.db, units);
    expect(outcomes.every((o) => o === 'stored')).toBe(true);
    expect((await getUnit(database.db, job.id, 'u1202'))?.result).toBe(1202);
  });

  it('answers for each job exactly what getUnits answers, an empty map for a job without units', async () => {
    const { database } = ctx();
    const [a, b, c] = [
      await runningJob(database),
      await runningJob(database),
      await runningJob(database),
    ];
    const at = (j: typeof a) => ({ jobId: j.id, attemptId: j.attemptId!, epoch: j.epoch });
    await storeUnitResults(database.db, [
      { ...at(a), unitKey: 'u0', result: 'a0' },
      { ...at(a), unitKey: 'u1', result: { n: 1 } },
      { ...at(b), unitKey: 'u0', result: null },
    ]);
    const all = await getUnitsOfJobs(database.db, [a.id, b.id, c.id, a.id]);
    expect([...all.keys()].sort()).toEqual([a.id, b.id, c.id].sort());
    for (const j of [a, b, c]) expect(all.get(j.id)).toEqual(await getUnits(database.db, j.id));
    expect(all.get(a.id)?.size).toBe(2);
    expect(all.get(c.id)?.size).toBe(0);
  });
  done();
}
