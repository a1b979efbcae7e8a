// The SQLite tailer reads new events when the database's WAL changes, not only on its poll: with
// the poll pushed out to a minute, events written outside the gateway (another process, or a
// write that bypasses the hub) still reach a watcher. Without the file watch these tests time
// out. A file it cannot watch leaves it polling.
import { spawnNode, waitFor } from '@sluice/testkit';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import type { StoredEvent } from '@sluice/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportProgress, startJob } from '../testing/drive.js';
import { record, startGateway, type GatewayFixture } from '../testing/fixture.js';
import { createSqliteTailer } from './sqlite-tailer.js';

type Item = { id: string; data: { seq: number } };

describe('SQLite tailer', () => {
  let db: TestDatabase;
  let f: GatewayFixture;
  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    f = await startGateway(db, { eventPollMs: 60_000 });
  });
  afterAll(async () => {
    await f.close();
    await db.dispose();
  });

  it('wakes on a commit that bypasses the hub, long before its poll', async () => {
    const { id } = await f
      .http(f.keyA)
      .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'a' } });
    const { client } = f.ws(f.keyA);
    const w = record<Item>((h) => client.jobs.watch.subscribe({ id }, h));
    await w.until(2, 5000);
    const epoch = await startJob(db.database, id);
    for (let i = 1; i <= 3; i++) await reportProgress(db.database, id, epoch, i);
    const items = await w.until(6, 5000);
    expect(items.map((i) => i.data.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    w.stop();
  });

  it('wakes on a commit by another process', async () => {
    const { id } = await f
      .http(f.keyA)
      .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'b' } });
    const { client } = f.ws(f.keyA);
    const w = record<Item>((h) => client.jobs.watch.subscribe({ id }, h));
    await w.until(2, 5000);
    const child = await spawnNode(new URL('../testing/writer-child.ts', import.meta.url), {
      env: { DB_URL: db.url, JOB_ID: id },
    });
    const exit = await child.exited;
    expect(exit.code, child.output()).toBe(0);
    const items = await w.until(7, 5000);
    expect(items.map((i) => i.data.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  }, 30_000);

  it('keeps polling when the file cannot be watched', async () => {
    const errors: unknown[] = [];
    const tailer = createSqliteTailer(db.database.db, {
      intervalMs: 20,
      file: '/nonexistent-sluice-dir/x.db',
      onError: (e) => errors.push(e),
    });
    const seen: StoredEvent[] = [];
    await tailer.start({
      deliver: (events) => seen.push(...events),
      resync: () => {},
      wanted: () => true,
      known: () => false,
    });
    try {
      const { id } = await f
        .http(f.keyA)
        .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'c' } });
      await waitFor(() => seen.some((e) => e.event.jobId === id), { timeoutMs: 5000 });
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      await tailer.close();
    }
  });
});
