// Held outbox rows (bounded-depth dispatch on Valkey Streams), on both dialects: held rows are
// invisible to the reconciler's due-row pass and survive the post-commit delete, the fair read
// hands them out round-robin across tenants (per kind, version and priority band), and the
// unmark never removes a retry row written meanwhile.

import { formatJobId } from '@sluice/contracts';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../testing/dialects.js';
import { HELD_DUE_AT, heldJobsFair, holdInOutbox, releaseHeld } from './held-outbox.js';
import { insertJob, transitionJob } from './jobs.js';
import { addToOutbox, deleteDispatchedOutbox, dueOutboxRows } from './outbox.js';

describeEachDialect('held outbox rows', (ctx) => {
  let clock = Date.now() - 60_000;
  async function job(tenantId: string, priority = 0): Promise<string> {
    const id = formatJobId('v1');
    const { database } = ctx();
    // A millisecond apart: the fair order breaks ties by age.
    await database.transaction(async (tx) => {
      await insertJob(
        tx,
        {
          id,
          tenantId,
          kind: 'held.k',
          version: 'v1',
          input: {},
          inputHash: 'h',
          maxAttempts: 3,
          priority,
        },
        clock++,
      );
      // Held jobs are queued (the accept path's dispatch move).
      await transitionJob(tx, { id, event: 'dispatch' });
      await addToOutbox(tx, [id]);
    });
    return id;
  }

  it('fair_order_round_robins_across_tenants: one of each tenant per turn, oldest first', async () => {
    const { db } = ctx().database;
    const a = [];
    for (let i = 0; i < 5; i++) a.push(await job('ten-a'));
    const b = [await job('ten-b'), await job('ten-b')];
    const c = [await job('ten-c')];
    const urgent = await job('ten-a', 4); // its own band: a turn of its own
    await holdInOutbox(db, [...a, ...b, ...c, urgent]);
    const held = await heldJobsFair(db, 10, 100);
    const normal = held.filter((h) => h.priority === 0).map((h) => h.id);
    expect(normal).toEqual([a[0], b[0], c[0], a[1], b[1], a[2], a[3], a[4]]);
    expect(held.find((h) => h.id === urgent)?.turn).toBe(1);
    expect((await heldJobsFair(db, 1, 100)).map((h) => h.id).sort()).toEqual(
      [a[0], b[0], c[0], urgent].sort(),
    );
    await releaseHeld(db, [...a, ...b, ...c, urgent]);
    expect(await heldJobsFair(db, 10, 100)).toEqual([]);
  });

  it('held_rows_survive_the_post_commit_delete_and_skip_the_due_pass', async () => {
    const { db } = ctx().database;
    const id = await job('ten-d');
    const dispatchStartedIso = new Date().toISOString();
    await holdInOutbox(db, [id]);
    await deleteDispatchedOutbox(db, [id], dispatchStartedIso);
    expect((await heldJobsFair(db, 10, 100)).map((h) => h.id)).toContain(id);
    const due = await dueOutboxRows(db, Date.now() + 3_600_000, 0, 1000);
    expect(due.map((r) => r.jobId)).not.toContain(id);
    // A worker's retry row written meanwhile is not removed by the unmark.
    await addToOutbox(db, [id], new Date(Date.now() + 1000).toISOString());
    await releaseHeld(db, [id]);
    const rows = await db.selectFrom('outbox').select(['job_id', 'due_at']).execute();
    expect(rows.find((r) => r.job_id === id)?.due_at).not.toBe(HELD_DUE_AT);
    expect(rows.map((r) => r.job_id)).toContain(id);
  });
});
