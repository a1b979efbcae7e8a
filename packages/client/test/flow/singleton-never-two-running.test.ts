// Catches a singleton key that lets two jobs run at once: two gateways (each its own database
// handle) take submits of one key at the same time and two workers with free slots run them.
// `queue`: every job runs, one at a time per key (the handler counts what runs at once);
// `skip`: while one lives, every submit through either gateway answers that job; `cancel-older`:
// the live job is cancelled (its handle rejects) and the new one runs, and the database never
// shows two of the key's jobs `running`. Seeded bug `singleton-never-holds` (a `queue` submit
// runs at once) turns this red.
import { defineJob, defineJobs } from '@sluice/contracts';
import { waitFor } from '@sluice/testkit';
import { defineHandler } from '@sluice/worker';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { isJobCancelledError } from '../../src/index.js';
import { describeFlowCluster } from '../fixtures/flow-cluster.js';

const sync = defineJob({
  kind: 'flow.sync',
  versions: { current: 'v1' },
  input: z.object({ key: z.string(), n: z.number().int(), ms: z.number().int() }),
  output: z.object({ n: z.number().int() }),
  singleton: { mode: 'queue' },
});
const jobs = defineJobs(sync);

const running = new Map<string, number>();
const most = new Map<string, number>();
const ranJobs: string[] = [];
const handlers = {
  'flow.sync': {
    v1: defineHandler(sync, {
      prepare: (ctx) => [{ key: 'only', input: ctx.input }],
      execute: async (unit, ctx) => {
        const { key } = unit.input;
        const now = (running.get(key) ?? 0) + 1;
        running.set(key, now);
        most.set(key, Math.max(most.get(key) ?? 0, now));
        ranJobs.push(ctx.jobId);
        try {
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, unit.input.ms);
            ctx.signal.addEventListener('abort', () => {
              clearTimeout(t);
              resolve();
            });
          });
        } finally {
          running.set(key, (running.get(key) ?? 1) - 1);
        }
        return unit.input.n;
      },
      finalize: (results) => ({ n: results[0]?.result ?? -1 }),
    }),
  },
};

describeFlowCluster('a singleton key never has two running', jobs, handlers, (cluster) => {
  /** Jobs of `key` stored as running right now. */
  async function storedRunning(key: string): Promise<number> {
    const rows = await cluster()
      .db.database.db.selectFrom('jobs')
      .select('input')
      .where('kind', '=', 'flow.sync')
      .where('state', '=', 'running')
      .execute();
    return rows.filter((r) => (JSON.parse(String(r.input)) as { key: string }).key === key).length;
  }

  it('queue: every job of a key runs, one at a time, whichever gateway took it', async () => {
    const [a, b] = cluster().clients;
    const keys = ['q1', 'q2'];
    const handles = await Promise.all(
      keys.flatMap((key) =>
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 === 0 ? a : b).submit(
            'flow.sync',
            { key, n: i, ms: 120 },
            { singleton: { key, mode: 'queue' } },
          ),
        ),
      ),
    );
    expect(new Set(handles.map((h) => h.id)).size).toBe(12);
    const outputs = await Promise.all(handles.map((h) => h.result()));
    expect(outputs.map((o) => o.n)).toEqual([0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]);
    for (const key of keys) expect(most.get(key)).toBe(1);
    // Each ran exactly once.
    for (const h of handles) expect(ranJobs.filter((id) => id === h.id)).toHaveLength(1);
  });

  it('skip: while a job of the key lives, every submit answers it', async () => {
    const [a, b] = cluster().clients;
    const first = await a.submit(
      'flow.sync',
      { key: 's1', n: 1, ms: 600 },
      { singleton: { key: 's1', mode: 'skip' } },
    );
    expect(first.skipped).toBe(false);
    const again = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? b : a).submit(
          'flow.sync',
          { key: 's1', n: 2 + i, ms: 10 },
          { singleton: { key: 's1', mode: 'skip' } },
        ),
      ),
    );
    expect(again.every((h) => h.id === first.id && h.skipped)).toBe(true);
    expect(await again[3]?.result()).toEqual({ n: 1 });
    // The key is free once its job ended: the next submit makes a new job.
    const next = await b.submit(
      'flow.sync',
      { key: 's1', n: 9, ms: 10 },
      { singleton: { key: 's1', mode: 'skip' } },
    );
    expect(next.skipped).toBe(false);
    expect(next.id).not.toBe(first.id);
    expect(await next.result()).toEqual({ n: 9 });
    expect(most.get('s1')).toBe(1);
  });

  it('cancel-older: the live job is cancelled and the new one runs, never both', async () => {
    const [a, b] = cluster().clients;
    let most = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        most = Math.max(most, await storedRunning('c1'));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const older = await a.submit(
      'flow.sync',
      { key: 'c1', n: 1, ms: 5_000 },
      { singleton: { key: 'c1', mode: 'cancel-older' } },
    );
    await waitFor(async () => (await older.status()).state === 'running');
    const newer = await b.submit(
      'flow.sync',
      { key: 'c1', n: 2, ms: 50 },
      { singleton: { key: 'c1', mode: 'cancel-older' } },
    );
    expect(newer.id).not.toBe(older.id);
    const error = await older.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isJobCancelledError(error)).toBe(true);
    expect(await newer.result()).toEqual({ n: 2 });
    watching = false;
    await watch;
    expect(most).toBe(1);
  });
});
