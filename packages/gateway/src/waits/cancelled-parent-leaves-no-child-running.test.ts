// A cancelled parent leaves no attached descendant running and no wait open, even when the
// gateway dies right after the cancel commits: the cascade is written in the cancel's own
// transaction. Each of the three ways a cancel is stored (one job's `jobs.cancel`, a bulk
// cancel's batch, a singleton submit's `cancel-older`) is cut at the `after-cancel-commit` crash
// point (hooks.ts), on SQLite and PostgreSQL. Nothing after the commit runs, so the stop nobody
// sent is shown to be harmless too: the grandchild's attempt, still holding its old epoch, has
// every write refused.

import {
  createApiKey,
  getJobById,
  getWait,
  listEvents,
  registerWait,
  startChild,
  transitionJob,
  type SluiceDatabase,
} from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startJob, reportProgress, succeedJob } from '../testing/drive.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

interface Tree {
  parent: string;
  child: string;
  grandchild: string;
  grandchildEpoch: number;
  detached: string;
}

/** A child the due-job scheduler may or may not have queued yet, started by its attempt. */
async function run(database: SluiceDatabase, id: string): Promise<number> {
  await database.transaction((tx) => transitionJob(tx, { id, event: 'due' }));
  return startJob(database, id);
}

let made = 0;

async function childOf(
  database: SluiceDatabase,
  parentId: string,
  parentEpoch: number,
  key: string,
  detached = false,
): Promise<string> {
  const r = await startChild(database, {
    parentId,
    parentEpoch,
    key,
    child: {
      id: `v1-${`${key}${++made}`.padEnd(26, 'k')}`,
      tenantId: '',
      kind: 'demo.copy',
      version: 'v1',
      input: { text: key },
      inputHash: key,
      maxAttempts: 3,
      detached,
    },
  });
  if (r.kind !== 'started') throw new Error('fenced');
  return r.id;
}

/** `id` suspends on its children: waiting, with an open wait `children#1`. */
async function waitOnChildren(database: SluiceDatabase, id: string, epoch: number, of: string[]) {
  const row = await getJobById(database.db, id);
  const r = await registerWait(database, {
    jobId: id,
    fence: { epoch, lastSeq: row?.lastSeq ?? 0 },
    waitKey: 'children#1',
    kind: 'children',
    children: of,
    mode: 'all',
  });
  expect(r.kind).toBe('suspended');
}

/** parent (waiting) → attached child (waiting) → grandchild (running); a detached child. */
async function tree(database: SluiceDatabase, parent: string): Promise<Tree> {
  const epoch = await startJob(database, parent);
  const child = await childOf(database, parent, epoch, 'c');
  const detached = await childOf(database, parent, epoch, 'd', true);
  const childEpoch = await run(database, child);
  const grandchild = await childOf(database, child, childEpoch, 'g');
  const grandchildEpoch = await run(database, grandchild);
  await waitOnChildren(database, child, childEpoch, [grandchild]);
  await waitOnChildren(database, parent, epoch, [child]);
  return { parent, child, grandchild, grandchildEpoch, detached };
}

async function expectNothingLeftRunning(database: SluiceDatabase, t: Tree) {
  expect((await getJobById(database.db, t.parent))?.state).toBe('cancelled');
  for (const id of [t.child, t.grandchild]) {
    expect(await getJobById(database.db, id)).toMatchObject({
      state: 'cancelled',
      reason: 'PARENT_CANCELLED',
    });
    const last = (await listEvents(database.db, id)).at(-1);
    expect(last).toMatchObject({ type: 'state', to: 'cancelled', reason: 'PARENT_CANCELLED' });
  }
  for (const id of [t.parent, t.child])
    expect((await getWait(database.db, id, 'children#1'))?.status).toBe('cancelled');
  // A detached child lives on: still due, or already queued by the due-job scheduler.
  expect(['scheduled', 'queued']).toContain((await getJobById(database.db, t.detached))?.state);
  // Nobody told the grandchild's worker to stop; its writes are fenced all the same.
  await expect(reportProgress(database, t.grandchild, t.grandchildEpoch, 1)).rejects.toThrow(
    /lost its job/,
  );
  await expect(succeedJob(database, t.grandchild, t.grandchildEpoch, {})).rejects.toThrow(
    /cannot succeed/,
  );
  expect((await getJobById(database.db, t.grandchild))?.state).toBe('cancelled');
}

describeEachDialect('cancelled-parent-leaves-no-child-running', (ctx) => {
  let f: GatewayFixture;
  let crashes = 0;
  beforeAll(async () => {
    f = await startGateway(ctx(), {
      hooks: {
        at(point) {
          if (point !== 'after-cancel-commit') return;
          crashes++;
          throw new Error('crash: after-cancel-commit');
        },
      },
      bulk: { batchSize: 10, pauseMs: 0, pollMs: 50 },
    });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('one job cancelled: its tree is cancelled with it, though nothing after the commit ran', async () => {
    const { database } = ctx();
    const c = f.http(f.keyA);
    const { id } = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'one' } });
    const t = await tree(database, id);
    const before = crashes;
    // The crash comes after the commit: the call answers from the stored cancel, or fails.
    await c.jobs.cancel.mutate({ id }).catch(() => undefined);
    expect(crashes).toBe(before + 1);
    await expectNothingLeftRunning(database, t);
  });

  it('a bulk cancel batch: every tree in it is cancelled with it', async () => {
    const { database } = ctx();
    const manager = await createApiKey(database.db, 'acme', {
      scopes: ['jobs:submit', 'jobs:read', 'jobs:manage'],
    });
    const c = f.http(manager.key);
    const trees: Tree[] = [];
    for (let i = 0; i < 3; i++) {
      const { id } = await c.jobs.submit.mutate({
        kind: 'demo.echo',
        input: { text: `bulk${i}` },
        tags: ['crash-cascade'],
      });
      trees.push(await tree(database, id));
    }
    const before = crashes;
    const op = await c.bulk.start.mutate({
      action: 'cancel',
      filter: { tags: ['crash-cascade'] },
      operationKey: 'crash-cascade',
    });
    // The runner "dies" after its batch committed: the operation ends failed, the batch stands.
    await waitFor(async () => (await c.bulk.get.query({ id: op.id })).state === 'failed', {
      timeoutMs: 10_000,
    });
    expect(crashes).toBe(before + 1);
    for (const t of trees) await expectNothingLeftRunning(database, t);
  });

  it("a singleton's cancel-older: the replaced job's tree is cancelled with it", async () => {
    const { database } = ctx();
    const c = f.http(f.keyA);
    const opts = { singleton: { key: 'crash-cascade', mode: 'cancel-older' as const } };
    const old = await c.jobs.submit.mutate({ kind: 'demo.copy', input: { text: '1' }, ...opts });
    const t = await tree(database, old.id);
    const before = crashes;
    expect(
      await errorOf(c.jobs.submit.mutate({ kind: 'demo.copy', input: { text: '2' }, ...opts })),
    ).toBeDefined();
    expect(crashes).toBe(before + 1);
    expect(await getJobById(database.db, old.id)).toMatchObject({ reason: 'SINGLETON_REPLACED' });
    await expectNothingLeftRunning(database, t);
  });
});
