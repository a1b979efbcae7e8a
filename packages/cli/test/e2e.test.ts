// The end-to-end promises (typed submit → watch → result, idempotent submits, typed errors, tenant
// isolation, cancel, no loss when a gateway or worker dies), with the gateway and workers as
// separate OS processes and the typed client in the test process, on SQLite and on PostgreSQL.

import { createApiKey, listEvents } from '@sluice/storage';
import { sql } from 'kysely';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '@sluice/storage/testing';
import { startRedisServer, waitFor, type RedisServer } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJobCancelledError, isSluiceApiError, type JobWatchEvent } from '@sluice/client';
import { startCluster, type Cluster } from './cluster.js';

async function counts(t: TestDatabase) {
  const one = async (table: 'jobs' | 'files' | 'job_events') =>
    Number(
      (
        await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(
          t.database.db,
        )
      ).rows[0]?.n,
    );
  return {
    jobs: await one('jobs'),
    files: await one('files'),
    events: await one('job_events'),
  };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

function seqs(events: readonly JobWatchEvent[]): number[] {
  return events.map((e) => e.seq);
}

// The embedded runtime on both dialects, and Valkey Streams with PostgreSQL (how it is deployed).
const SETUPS = [
  ...TEST_DIALECTS.map((dialect) => ({ dialect, runtime: 'embedded' as const })),
  ...(TEST_DIALECTS.includes('postgres')
    ? [{ dialect: 'postgres' as const, runtime: 'valkey-streams' as const }]
    : []),
];

for (const { dialect, runtime } of SETUPS) {
  describe(`end to end across processes [${runtime}/${dialect}]`, () => {
    let db: TestDatabase;
    let redis: RedisServer | undefined;
    let cluster: Cluster;
    let acme: string;
    let other: string;

    beforeAll(async () => {
      db = await createTestDatabase(dialect);
      if (runtime === 'valkey-streams') redis = await startRedisServer();
      acme = (await createApiKey(db.database.db, 'acme')).key;
      other = (await createApiKey(db.database.db, 'other')).key;
      cluster = await startCluster(db.url, { workers: 1, leaseMs: 1500, redisUrl: redis?.url });
    }, 120_000);
    afterAll(async () => {
      await cluster?.close();
      await redis?.stop();
      await db?.dispose();
    });

    it('submit → watch → typed result', async () => {
      const client = cluster.client(acme);
      const job = await client.submit('e2e.work', { units: 3, unitMs: 50 });
      const events = await collect(job.watch());
      expect(seqs(events)).toEqual(events.map((_, i) => i + 1));
      expect(
        events
          .filter((e) => e.type === 'progress')
          .map((e) => (e.type === 'progress' ? e.data.unit : ''))
          .sort(),
      ).toEqual(['u0', 'u1', 'u2']);
      expect(events.at(-1)).toMatchObject({ type: 'state', to: 'succeeded' });
      const result = await job.result();
      expect(result).toEqual({ count: 3 });
      expect((await job.status()).state).toBe('succeeded');
    });

    it('a duplicate submit returns the same job; the same key with other input is a CONFLICT', async () => {
      const client = cluster.client(acme);
      const a = await client.submit(
        'e2e.work',
        { units: 1, unitMs: 0 },
        { idempotencyKey: 'order-1' },
      );
      const b = await client.submit(
        'e2e.work',
        { units: 1, unitMs: 0 },
        { idempotencyKey: 'order-1' },
      );
      expect([a.isDuplicate, b.isDuplicate, b.id]).toEqual([false, true, a.id]);
      await expect(
        client.submit('e2e.work', { units: 2, unitMs: 0 }, { idempotencyKey: 'order-1' }),
      ).rejects.toMatchObject({ code: 'CONFLICT' });
      await a.result();
    });

    it('bad input answers a typed error and writes no row, event, queue entry or file', async () => {
      const client = cluster.client(acme);
      const before = await counts(db);
      // @ts-expect-error units must be a number: the types refuse it too
      const bad = client.submit('e2e.work', { units: 'many', unitMs: 0 });
      await expect(bad).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      // @ts-expect-error unknown kind
      await expect(client.submit('e2e.nope', {})).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      await expect(
        client.submit(
          'e2e.work',
          { units: 1, unitMs: 0 },
          { fileIds: ['f_aaaaaaaaaaaaaaaaaaaaaaaaaa'] },
        ),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await counts(db)).toEqual(before);
    });

    it('a missing or wrong key is UNAUTHORIZED', async () => {
      for (const key of ['', 'sk_kaaaaaaaaaaaa_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', `${acme}x`]) {
        const client = cluster.client(key);
        const err = await client
          .submit('e2e.work', { units: 1, unitMs: 0 })
          .catch((e: unknown) => e);
        expect(isSluiceApiError(err) && err.code).toBe('UNAUTHORIZED');
      }
    });

    it("another tenant's job and file answer exactly like missing ones", async () => {
      const mine = cluster.client(acme);
      const theirs = cluster.client(other);
      const job = await mine.submit('e2e.work', { units: 1, unitMs: 0 });
      const file = await mine.upload(new Blob(['hello']), {
        filename: 'a.txt',
        contentType: 'text/plain',
      });
      const missing = 'v1-aaaaaaaaaaaaaaaaaaaaaaaaaa';
      const shape = (e: unknown) =>
        isSluiceApiError(e)
          ? { code: e.code, message: e.message.replace(/v1-[a-z2-7]{26}/, 'ID') }
          : e;
      for (const [name, call] of [
        ['get', (id: string) => theirs.job(id).status()],
        ['result', (id: string) => theirs.job(id).result()],
        ['cancel', (id: string) => theirs.job(id).cancel()],
        ['watch', (id: string) => collect(theirs.job(id).watch())],
      ] as const) {
        const foreign = shape(await call(job.id).catch((e: unknown) => e));
        const absent = shape(await call(missing).catch((e: unknown) => e));
        expect(foreign, name).toEqual(absent);
        expect(foreign, name).toMatchObject({ code: 'NOT_FOUND' });
      }
      await expect(
        theirs.submit('e2e.read-file', { fileId: file.id }, { fileIds: [file.id] }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(theirs.files.get(file.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const read = await mine.submit('e2e.read-file', { fileId: file.id }, { fileIds: [file.id] });
      expect(await read.result()).toEqual({ bytes: 5 });
    });

    it('cancel reaches a running job: result() rejects with JobCancelledError', async () => {
      const client = cluster.client(acme);
      const job = await client.submit('e2e.work', { units: 1, unitMs: 20_000 });
      await waitFor(async () => (await job.status()).state === 'running', { timeoutMs: 15_000 });
      expect((await job.cancel()).state).toBe('cancelled');
      const err = await job.result().catch((e: unknown) => e);
      expect(isJobCancelledError(err)).toBe(true);
      // the worker's attempt stopped: nothing after the cancel event
      await new Promise((r) => setTimeout(r, 1000));
      const events = await listEvents(db.database.db, job.id);
      expect(events.at(-1)).toMatchObject({ type: 'state', to: 'cancelled' });
    });

    it('a watcher whose gateway is killed mid-job reconnects to the restarted gateway and misses nothing', async () => {
      const client = cluster.client(acme);
      const job = await client.submit('e2e.work', { units: 6, unitMs: 400 });
      const seen: JobWatchEvent[] = [];
      const watching = (async () => {
        for await (const e of job.watch()) seen.push(e);
      })();
      await waitFor(() => seen.some((e) => e.type === 'progress'), { timeoutMs: 15_000 });
      await cluster.gateway.kill();
      await new Promise((r) => setTimeout(r, 300));
      await cluster.startGateway();
      await watching;
      const stored = await listEvents(db.database.db, job.id);
      expect(seqs(seen)).toEqual(stored.map((e) => e.seq));
      expect(seen.at(-1)).toMatchObject({ to: 'succeeded' });
    }, 60_000);

    it('a worker SIGKILLed mid-job loses nothing: another worker finishes it once', async () => {
      const client = cluster.client(acme);
      const [first] = cluster.workers;
      // units run in parallel: one slow round of them, killed as soon as the attempt is running
      const job = await client.submit('e2e.work', { units: 4, unitMs: 3000 });
      await waitFor(
        async () =>
          (await listEvents(db.database.db, job.id)).some(
            (e) => e.type === 'state' && e.to === 'running',
          ),
        { timeoutMs: 15_000, intervalMs: 20 },
      );
      await first!.kill();
      cluster.workers.shift();
      await cluster.startWorker();
      expect(await job.result()).toEqual({ count: 4 });
      const events = await listEvents(db.database.db, job.id);
      expect(events.filter((e) => e.type === 'state' && e.to === 'succeeded')).toHaveLength(1);
      // attempt 2 took over only after attempt 1's lease (1.5 s) — never while it was live
      expect(
        events
          .filter((e) => e.type === 'state' && e.to === 'running')
          .map((e) => (e.type === 'state' ? e.attempt : 0)),
      ).toEqual([1, 2]);
      expect((await job.status()).attempts).toBe(2);
    }, 60_000);
  });
}
