// Catches a sweep that reads every open children wait on every pass: each candidate costs a
// write transaction that locks its parent, so a thousand parents whose children still run cost a
// thousand transactions a second — and a page of them hid a parent whose children ended behind
// it, pass after pass. The sweep now asks the database which children waits are satisfied
// (`all`: none of the listed children unended; `any`: one ended), a removed child counting as
// ended as it does in the wait's value.

import { formatJobId } from '@sluice/contracts';
import { expect, it } from 'vitest';
import type { SluiceDatabase } from '../database.js';
import { describeEachDialect } from '../testing/dialects.js';
import { transitionJob } from '../repos/jobs.js';
import { runningTestJob } from '../testing/test-jobs.js';
import { startChild } from './children.js';
import { registerWait } from './register-wait.js';
import { sweepCandidates } from './due-waits.js';

/** A parent waiting (`mode`) on `n` children it started, each still `scheduled`. */
async function waitingParent(database: SluiceDatabase, n: number, mode: 'all' | 'any') {
  const parent = await runningTestJob(database, 'x.parent');
  const children: string[] = [];
  for (let i = 0; i < n; i++) {
    const started = await startChild(database, {
      parentId: parent.id,
      parentEpoch: parent.epoch,
      key: `c${i}`,
      child: {
        id: formatJobId('v1'),
        tenantId: '',
        kind: 'x.child',
        version: 'v1',
        input: {},
        inputHash: 'h',
        maxAttempts: 3,
      },
    });
    if (started.kind !== 'started') throw new Error('child fenced');
    children.push(started.id);
  }
  const wait = await registerWait(database, {
    jobId: parent.id,
    fence: { epoch: parent.epoch, lastSeq: parent.lastSeq },
    waitKey: 'children#1',
    kind: 'children',
    children,
    mode,
  });
  expect(wait.kind).toBe('suspended');
  return { id: parent.id, children };
}

const end = (database: SluiceDatabase, id: string) =>
  database.transaction((tx) => transitionJob(tx, { id, event: 'cancel' }));

const candidateIds = async (database: SluiceDatabase, mine: readonly string[], limit: number) =>
  (await sweepCandidates(database.db, Date.now(), limit))
    .map((c) => c.jobId)
    .filter((id) => mine.includes(id));

describeEachDialect('the sweep reads only satisfied children waits', (ctx) => {
  it('parents whose children still run are no candidates; a ready one is found past them', async () => {
    const { database } = ctx();
    const busy = [];
    for (let i = 0; i < 6; i++) busy.push(await waitingParent(database, 2, 'all'));
    const ready = await waitingParent(database, 2, 'all');
    const mine = [...busy, ready].map((p) => p.id);
    expect(await candidateIds(database, mine, 1000)).toEqual([]);
    // `all`: one child ended is not enough; both are.
    await end(database, ready.children[0] as string);
    await end(database, busy[0]?.children[0] as string);
    expect(await candidateIds(database, mine, 1000)).toEqual([]);
    await end(database, ready.children[1] as string);
    // A page smaller than the parents still waiting finds the ready one.
    expect(await candidateIds(database, mine, 3)).toEqual([ready.id]);
  });

  it('`any`: a candidate once one child ended, or one was removed', async () => {
    const { database } = ctx();
    const one = await waitingParent(database, 3, 'any');
    const gone = await waitingParent(database, 2, 'any');
    const mine = [one.id, gone.id];
    expect(await candidateIds(database, mine, 1000)).toEqual([]);
    await end(database, one.children[2] as string);
    await database.db
      .deleteFrom('jobs')
      .where('id', '=', gone.children[0] as string)
      .execute();
    expect((await candidateIds(database, mine, 1000)).sort()).toEqual([...mine].sort());
  });
});
