// Catches a second child after a crash: a parent worker SIGKILLed right after its child's insert
// committed (nothing of the parent after it stored) is taken over by another worker process,
// whose run of the parent starts the child again — it must get the same child back (its key
// derives from the parent and the child's key, never from the attempt), and the parent must end
// with that one child's result. The gateway's part (the child due now, the children wait) is
// played by the test process with the same storage calls (waits-kit.ts).

import { EMBEDDED_CAPABILITIES, formatJobId } from '@sluice/contracts';
import { enqueue, getJobsByIds, insertJob, transitionJob } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { spawnNode, waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import type { ConformanceHarness } from '../testing/conformance-kit.js';
import { startPump } from '../testing/waits-kit.js';

const entry = new URL('../testing/parent-worker-child.ts', import.meta.url);

describeEachDialect("a crash between a child's start and the parent's checkpoint", (ctx) => {
  it('starts the child exactly once', { timeout: 90_000 }, async () => {
    const { database, url } = ctx();
    const harness = {
      capabilities: EMBEDDED_CAPABILITIES,
      database,
      dispatch: (pointers, tx) => enqueue(tx ?? database.db, pointers),
    } as Pick<ConformanceHarness, 'capabilities' | 'database' | 'dispatch'> as ConformanceHarness;
    const pump = startPump(harness);
    try {
      await using a = await spawnNode(entry, {
        env: { DB_URL: url, WORKER_ID: 'xp-a', CRASHPOINTS: 'after-child-start@1' },
        readyLine: /READY/,
      });
      const id = formatJobId('v1');
      await database.transaction(async (tx) => {
        await insertJob(tx, {
          id,
          tenantId: 'acme',
          kind: 'xp.parent',
          version: 'v1',
          input: { n: 21 },
          inputHash: 'h',
          maxAttempts: 5,
        });
        await transitionJob(tx, { id, event: 'dispatch' });
        await enqueue(tx, [{ jobId: id, kind: 'xp.parent', version: 'v1', tenantId: 'acme' }]);
      });
      // It SIGKILLs itself at the crash point, right after the child's insert.
      expect(await a.exited).toMatchObject({ signal: 'SIGKILL' });
      await waitFor(
        async () =>
          (await database.db.selectFrom('jobs').select('id').where('parent_id', '=', id).execute())
            .length > 0,
        { timeoutMs: 20_000, message: 'the child inserted before the crash' },
      );
      await using b = await spawnNode(entry, {
        env: { DB_URL: url, WORKER_ID: 'xp-b' },
        readyLine: /READY/,
      });
      await waitFor(
        async () => (await getJobsByIds(database.db, [id])).get(id)?.state === 'succeeded',
        { timeoutMs: 30_000, message: 'the parent succeeded' },
      );
      expect(b.output()).toMatch(new RegExp(`PARENT ${id} 2`));
      expect((await getJobsByIds(database.db, [id])).get(id)?.output).toEqual({ n: 42 });
      const children = await database.db
        .selectFrom('jobs')
        .select('id')
        .where('parent_id', '=', id)
        .execute();
      expect(children).toHaveLength(1);
    } finally {
      await pump.stop();
    }
  });
});
