import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatJobId, type MessagePointer } from '@sluice/contracts';
import { spawnNode } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../testing/dialects.js';
import { insertJob, transitionJob } from './jobs.js';
import { ack, claim, enqueue, queueStats, release, removeFromQueue, renew } from './queue.js';

const v = (kind: string) => [{ kind, version: 'v1' }];
function pointer(kind: string): MessagePointer {
  return { jobId: formatJobId('v1'), kind, version: 'v1', tenantId: 'acme' };
}

describeEachDialect('embedded lease queue', (ctx) => {
  it('claims ready rows once, with a lease token; expired leases come back', async () => {
    const { database } = ctx();
    const db = database.db;
    const ps = [pointer('q.one'), pointer('q.one'), pointer('q.other')];
    await database.transaction((tx) => enqueue(tx, ps));
    const t0 = Date.now();
    const first = await claim(db, {
      versions: v('q.one'),
      owner: 'w1',
      leaseMs: 1000,
      limit: 10,
      now: t0,
    });
    expect(first.map((c) => c.pointer.jobId).sort()).toEqual([ps[0]?.jobId, ps[1]?.jobId].sort());
    expect(first.every((c) => c.token === 1 && c.deliveries === 1)).toBe(true);
    expect(first[0]?.pointer).toMatchObject({ kind: 'q.one', version: 'v1', tenantId: 'acme' });
    // leased: nobody else gets them, not even the same owner without includeOwn
    expect(
      await claim(db, {
        versions: v('q.one'),
        owner: 'w2',
        leaseMs: 1000,
        limit: 10,
        now: t0 + 10,
      }),
    ).toEqual([]);
    expect(
      await claim(db, {
        versions: v('q.one'),
        owner: 'w1',
        leaseMs: 1000,
        limit: 10,
        now: t0 + 10,
      }),
    ).toEqual([]);
    // a restarted owner takes back its own leases first
    const own = await claim(db, {
      versions: v('q.one'),
      owner: 'w1',
      leaseMs: 1000,
      limit: 10,
      now: t0 + 20,
      includeOwn: true,
    });
    expect(own).toHaveLength(2);
    expect(own.every((c) => c.token === 2)).toBe(true);
    // after expiry another worker takes them, with a new token
    const stolen = await claim(db, {
      versions: v('q.one'),
      owner: 'w2',
      leaseMs: 1000,
      limit: 1,
      now: t0 + 5000,
    });
    expect(stolen).toHaveLength(1);
    expect(stolen[0]?.token).toBe(3);
    const s = stolen[0]!;
    // the old holder can neither renew nor ack nor release it any more
    expect((await renew(db, [{ jobId: s.pointer.jobId, token: 2 }], 'w1', 1000)).size).toBe(0);
    expect(await ack(db, [{ jobId: s.pointer.jobId, token: 2 }])).toBe(0);
    expect(await release(db, [{ jobId: s.pointer.jobId, token: 2 }])).toBe(0);
    // the new holder can
    expect([...(await renew(db, [{ jobId: s.pointer.jobId, token: 3 }], 'w2', 1000))]).toEqual([
      s.pointer.jobId,
    ]);
    expect((await renew(db, [{ jobId: s.pointer.jobId, token: 3 }], 'w1', 1000)).size).toBe(0);
    expect(await ack(db, [{ jobId: s.pointer.jobId, token: 3 }])).toBe(1);
    await removeFromQueue(
      db,
      ps.map((p) => p.jobId),
    );
  });

  it('release makes a row claimable again after the delay; requeue resets a lease', async () => {
    const { database } = ctx();
    const db = database.db;
    const p = pointer('q.rel');
    await database.transaction((tx) => enqueue(tx, [p]));
    const t0 = Date.now();
    const [c] = await claim(db, {
      versions: v('q.rel'),
      owner: 'w1',
      leaseMs: 60_000,
      limit: 1,
      now: t0,
    });
    expect(await release(db, [{ jobId: p.jobId, token: c!.token }], 2000, t0)).toBe(1);
    expect(
      await claim(db, {
        versions: v('q.rel'),
        owner: 'w2',
        leaseMs: 1000,
        limit: 1,
        now: t0 + 1000,
      }),
    ).toEqual([]);
    const [again] = await claim(db, {
      versions: v('q.rel'),
      owner: 'w2',
      leaseMs: 1000,
      limit: 1,
      now: t0 + 2500,
    });
    expect(again).toMatchObject({ token: 2, deliveries: 2 });
    await database.transaction((tx) => enqueue(tx, [p]));
    const [fresh] = await claim(db, { versions: v('q.rel'), owner: 'w3', leaseMs: 1000, limit: 1 });
    expect(fresh?.token).toBe(3);
    await removeFromQueue(db, [p.jobId]);
  });

  it('reports depth, leased rows and the oldest ready age', async () => {
    const { database } = ctx();
    const ps = [pointer('q.stats'), pointer('q.stats'), pointer('q.stats')];
    await database.transaction((tx) => enqueue(tx, ps));
    await claim(database.db, { versions: v('q.stats'), owner: 'w', leaseMs: 60_000, limit: 1 });
    const stats = await queueStats(database.db, Date.now() + 1000);
    expect(stats.depth).toBe(3);
    expect(stats.leased).toBe(1);
    expect(stats.oldestReadyAgeMs).toBeGreaterThanOrEqual(900);
    await removeFromQueue(
      database.db,
      ps.map((p) => p.jobId),
    );
    expect(await queueStats(database.db)).toEqual({ depth: 0, leased: 0, oldestReadyAgeMs: 0 });
  });

  it('two processes claiming and starting the same 200 jobs never share one', async () => {
    const test = ctx();
    const ps = Array.from({ length: 200 }, () => pointer('demo.race'));
    await test.database.transaction(async (tx) => {
      for (const p of ps) {
        await insertJob(tx, {
          id: p.jobId,
          tenantId: 'acme',
          kind: 'demo.race',
          version: 'v1',
          input: {},
          inputHash: 'h',
          maxAttempts: 1,
        });
        await transitionJob(tx, { id: p.jobId, event: 'dispatch' });
      }
      await enqueue(tx, ps);
    });
    const entry = fileURLToPath(new URL('../testing/claim-child.ts', import.meta.url));
    const goFile = join(mkdtempSync(join(tmpdir(), 'sluice-race-')), 'go');
    const children = await Promise.all(
      ['a', 'b'].map((owner) =>
        spawnNode(entry, {
          env: { DB_URL: test.url, OWNER: owner, GO_FILE: goFile },
          readyLine: /READY/,
          readyTimeoutMs: 30_000,
        }),
      ),
    );
    try {
      writeFileSync(goFile, 'go');
      const results = await Promise.all(
        children.map(async (c) => {
          const m = await c.waitForLine(/RESULT (.*)/, 60_000);
          return JSON.parse(m[1] as string) as { claimed: string[]; started: string[] };
        }),
      );
      const [a, b] = results as [
        { claimed: string[]; started: string[] },
        { claimed: string[]; started: string[] },
      ];
      // a real race: both processes got work, and never the same job
      expect(a.claimed.length).toBeGreaterThan(0);
      expect(b.claimed.length).toBeGreaterThan(0);
      expect(a.claimed.filter((id) => b.claimed.includes(id))).toEqual([]);
      expect([...a.claimed, ...b.claimed].sort()).toEqual(ps.map((p) => p.jobId).sort());
      expect([...a.started, ...b.started].sort()).toEqual(ps.map((p) => p.jobId).sort());
    } finally {
      await Promise.all(children.map((c) => c.stop()));
    }
  }, 90_000);
});
