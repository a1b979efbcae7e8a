// Catches a wake that starts the wrong waiter (not priority-then-age), more waiters than the key
// has free slots (each extra one is claimed and held again for nothing), a job of another key or
// a rate hold, or that loses the slot's release. Counts and due times, never wall time.
import { formatJobId, type JobWaiting } from '@sluice/contracts';
import { expect } from 'vitest';
import { suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { acceptJobs } from './accept-jobs.js';
import { acquireSlot, lapsedSlotKeys, slotsHeld, wakeWaiters, type WaitingList } from './limits.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const BACKSTOP = new Date(T0 + 60_000).toISOString();

/** The suite, for every database (limit-waiters.test.ts: Node; workerd/storage-d1.test.ts: D1). */
export function limitWaitersCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);

  /** Queued jobs as the start gate's hold leaves them: `waiting` set, due at the backstop. */
  async function held(
    kind: string,
    jobs: { priority: number; by?: JobWaiting['by']; name?: string }[],
  ): Promise<string[]> {
    const { database } = ctx();
    const ids: string[] = [];
    for (const [n, j] of jobs.entries()) {
      const id = formatJobId('v1');
      ids.push(id);
      await acceptJobs(database, [
        {
          id,
          tenantId: 't',
          kind,
          version: 'v1',
          input: { n },
          inputHash: `h${n}`,
          idempotencyKey: null,
          fileIds: [],
          maxAttempts: 3,
          outcome: { to: 'queued' },
        },
      ]);
      const waiting: JobWaiting = {
        reason: 'kind',
        name: j.name ?? kind,
        by: j.by ?? 'concurrency',
        since: new Date(T0).toISOString(),
      };
      await database.db
        .updateTable('jobs')
        .set({
          waiting: JSON.stringify(waiting),
          run_after: BACKSTOP,
          priority: j.priority,
          created_at: new Date(T0 - 10_000 + n).toISOString(),
        })
        .where('id', '=', id)
        .execute();
    }
    return ids;
  }

  async function dueOf(ids: string[]): Promise<boolean[]> {
    const rows = await ctx()
      .database.db.selectFrom('jobs')
      .select(['id', 'run_after'])
      .where('id', 'in', ids)
      .execute();
    const due = new Map(rows.map((r) => [r.id, r.run_after !== BACKSTOP]));
    return ids.map((id) => due.get(id) ?? false);
  }

  it('a released slot makes the key’s next waiter due, in priority-then-age order', async () => {
    const { database } = ctx();
    const kind = 'wake.order';
    const list: WaitingList = { key: `kind:${kind}`, reason: 'kind', name: kind, max: 1 };
    const ids = await held(kind, [{ priority: 0 }, { priority: 5 }, { priority: 0 }]);
    expect(
      await acquireSlot(database, { key: list.key, holder: 'h', max: 1, ttlMs: 9e9, now: T0 }),
    );
    // The slot is taken: a re-check by a holder wakes nobody.
    expect(await wakeWaiters(database, list, null, T0)).toBe(0);
    expect(await wakeWaiters(database, list, 'h', T0)).toBe(1);
    expect(await slotsHeld(database, list.key, T0)).toBe(0);
    expect(await dueOf(ids)).toEqual([false, true, false]);
    // The woken waiter is not claimed yet: it counts for the free slot, nobody else is woken.
    expect(await wakeWaiters(database, list, null, T0)).toBe(0);
    await database.db
      .updateTable('jobs')
      .set({ state: 'running' })
      .where('id', '=', ids[1]!)
      .execute();
    expect(await wakeWaiters(database, list, null, T0)).toBe(1);
    expect(await dueOf(ids)).toEqual([true, true, false]);
  });

  it('a wake counts the key’s free slots and leaves other keys and rate holds alone', async () => {
    const { database } = ctx();
    const kind = 'wake.count';
    const list: WaitingList = { key: `kind:${kind}`, reason: 'kind', name: kind, max: 3 };
    const ids = await held(kind, [
      { priority: 9, by: 'rate' },
      { priority: 9, name: 'wake.other' },
      { priority: 1 },
      { priority: 1 },
      { priority: 1 },
    ]);
    expect(
      await acquireSlot(database, { key: list.key, holder: 'a', max: 3, ttlMs: 9e9, now: T0 }),
    );
    expect(
      await acquireSlot(database, { key: list.key, holder: 'b', max: 3, ttlMs: 9e9, now: T0 }),
    );
    // One slot free of three (b given back: two).
    expect(await wakeWaiters(database, list, 'b', T0)).toBe(2);
    expect(await dueOf(ids)).toEqual([false, false, true, true, false]);
  });

  it('lapsedSlotKeys names the start limits’ keys with a lapsed slot, once each; the wake drops them', async () => {
    const { database } = ctx();
    const slot = (key: string, holder: string, ttlMs: number) =>
      acquireSlot(database, { key, holder, max: 9, ttlMs, now: T0 });
    await slot('kind:lapse.a', 'x', 10);
    await slot('kind:lapse.a', 'y', 10);
    await slot('tenant:lapse.b/t1', 'x', 10);
    await slot('kind:lapse.c', 'x', 10_000);
    await slot('provider:lapse', 'x', 10);
    const keys = await lapsedSlotKeys(database, T0 + 100);
    expect(keys.filter((k) => k.includes('lapse')).sort()).toEqual([
      'kind:lapse.a',
      'tenant:lapse.b/t1',
    ]);
    const list = { key: 'kind:lapse.a', reason: 'kind', name: 'lapse.a', max: 9 };
    await wakeWaiters(database, list, null, T0 + 100);
    expect(await lapsedSlotKeys(database, T0 + 100)).not.toContain('kind:lapse.a');
    expect(await slotsHeld(database, 'kind:lapse.c', T0 + 100)).toBe(1);
  });

  done();
}
