import { formatJobId, type JobTransition } from '@sluice/contracts';
import { expect } from 'vitest';
import { repoWrite, suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { listEvents } from '../repos/events.js';
import { getJobById, insertJob, transitionJob } from '../repos/jobs.js';
import { cancelDescendants } from './cancel-descendants.js';
import { getWait } from './wait-rows.js';

/** The suite, for every database (cancel-descendants.test.ts: Node; workerd/storage-d1.test.ts: D1). */
export function cancelDescendantsCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);

  async function job(
    steps: JobTransition[],
    parentId: string | null = null,
    opts: { detached?: boolean; tenantId?: string } = {},
  ): Promise<string> {
    const { database } = ctx();
    const id = formatJobId('v1');
    await repoWrite(database, (tx) =>
      insertJob(tx, {
        id,
        tenantId: opts.tenantId ?? 'acme',
        kind: 'a.b',
        version: 'v1',
        input: {},
        inputHash: 'h',
        maxAttempts: 3,
        parentId,
        detached: opts.detached ?? false,
      }),
    );
    for (const event of steps)
      expect((await repoWrite(database, (tx) => transitionJob(tx, { id, event }))).ok).toBe(true);
    return id;
  }

  async function openWait(jobId: string, waitKey: string, status = 'open') {
    await ctx()
      .database.db.insertInto('job_waits')
      .values({
        job_id: jobId,
        wait_key: waitKey,
        kind: 'event',
        event: 'go',
        due_at: null,
        status,
        result: null,
        children: null,
        mode: null,
        created_at: new Date().toISOString(),
        resolved_at: null,
      })
      .execute();
  }

  const state = async (id: string) => (await getJobById(ctx().database.db, id))?.state;

  it('cancels the attached tree (through an ended child), closes waits, leaves the rest', async () => {
    const { database } = ctx();
    const parent = await job(['dispatch', 'start', 'cancel']);
    const attached = await job(['dispatch', 'start'], parent);
    const grandchild = await job(['dispatch'], attached);
    const ended = await job(['dispatch', 'start', 'succeed'], parent);
    const underEnded = await job(['schedule'], ended);
    const detached = await job(['dispatch'], parent, { detached: true });
    const underDetached = await job(['dispatch'], detached);
    const otherTenant = await job(['dispatch'], parent, { tenantId: 'globex' });
    await openWait(parent, 'event:go#1');
    await openWait(parent, 'event:go#0', 'resolved');
    await openWait(attached, 'event:go#1');

    const out = await repoWrite(database, (tx) => cancelDescendants(tx, 'acme', [parent]));
    expect(out.jobs.map((j) => j.id).sort()).toEqual([attached, grandchild, underEnded].sort());
    expect(out.jobs.every((j) => j.version === 'v1')).toBe(true);
    expect(out.events.map((e) => e.event)).toEqual(
      out.jobs.map(() => expect.objectContaining({ type: 'state', to: 'cancelled' })),
    );
    for (const id of [attached, grandchild, underEnded]) {
      expect(await getJobById(database.db, id)).toMatchObject({
        state: 'cancelled',
        reason: 'PARENT_CANCELLED',
      });
      expect((await listEvents(database.db, id)).at(-1)).toMatchObject({
        type: 'state',
        to: 'cancelled',
        reason: 'PARENT_CANCELLED',
      });
    }
    expect(await state(ended)).toBe('succeeded');
    expect(await state(detached)).toBe('queued');
    expect(await state(underDetached)).toBe('queued');
    expect(await state(otherTenant)).toBe('queued');
    expect((await getWait(database.db, parent, 'event:go#1'))?.status).toBe('cancelled');
    expect((await getWait(database.db, parent, 'event:go#0'))?.status).toBe('resolved');
    expect((await getWait(database.db, attached, 'event:go#1'))?.status).toBe('cancelled');
    // Run again (a retried cascade): nothing left to move, no second event.
    const again = await repoWrite(database, (tx) => cancelDescendants(tx, 'acme', [parent]));
    expect(again).toEqual({ events: [], jobs: [] });
  });

  it('takes many cancelled jobs at once (a bulk batch), each tree whole', async () => {
    const { database } = ctx();
    const parents = [
      await job(['cancel']),
      await job(['dispatch', 'cancel']),
      await job(['schedule', 'cancel']),
    ];
    const children: string[] = [];
    for (const p of parents) {
      const running = await job(['dispatch', 'start'], p);
      children.push(running, await job(['schedule'], p), await job(['dispatch'], running));
    }
    const out = await repoWrite(database, (tx) => cancelDescendants(tx, 'acme', parents));
    expect(out.jobs.map((j) => j.id).sort()).toEqual([...children].sort());
    for (const id of children) expect(await state(id)).toBe('cancelled');
  });

  it('stops at maxDepth', async () => {
    const { database } = ctx();
    const root = await job(['cancel']);
    const level1 = await job(['dispatch'], root);
    const level2 = await job(['dispatch'], level1);
    const out = await repoWrite(database, (tx) =>
      cancelDescendants(tx, 'acme', [root], Date.now(), 1),
    );
    expect(out.jobs.map((j) => j.id)).toEqual([level1]);
    expect(await state(level2)).toBe('queued');
  });

  done();
}
