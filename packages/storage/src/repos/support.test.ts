import type { PoolClient } from 'pg';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { formatJobId } from '@sluice/contracts';
import { expect, it } from 'vitest';
import { isoIn, isoNow } from '../json.js';
import { describeEachDialect } from '../testing/dialects.js';
import {
  createApiKey,
  liveApiKeyIds,
  listApiKeys,
  revokeApiKey,
  touchApiKeys,
  verifyApiKey,
} from './api-keys.js';
import { EVENTS_CHANNEL, eventsByIds, eventsSince, insertEvents, maxEventId } from './events.js';
import { openDatabase } from '../open-database.js';
import { waitFor } from '@sluice/testkit';
import {
  attachFiles,
  deleteFile,
  expiredFiles,
  getFile,
  getFiles,
  insertFile,
  listFiles,
  missingFiles,
  newFileId,
} from './files.js';
import { insertJob } from './jobs.js';
import { acquireLock, releaseLock } from './locks.js';
import { addToOutbox, dueOutbox, removeFromOutbox } from './outbox.js';

describeEachDialect('api keys', (ctx) => {
  it('verifies a created key to its tenant, stores only a hash, and revocation ends it', async () => {
    const test = ctx();
    const db = test.database.db;
    const created = await createApiKey(db, 'acme', 'ci');
    expect(created.key).toMatch(/^sk_k[a-z2-7]{12}_[a-z2-7]{32}$/);
    expect(await verifyApiKey(db, created.key)).toEqual({
      tenantId: 'acme',
      keyId: created.id,
      scopes: ['jobs:submit', 'jobs:read', 'review:decide', 'dead-letters:manage'],
      expiresAt: null,
    });
    // a wrong secret with the right id, a malformed key, an unknown id: all the same answer
    const wrong = created.key.slice(0, -1) + (created.key.endsWith('a') ? 'b' : 'a');
    expect(await verifyApiKey(db, wrong)).toBeUndefined();
    expect(await verifyApiKey(db, 'sk_nope')).toBeUndefined();
    expect(await verifyApiKey(db, `sk_k${'a'.repeat(12)}_${'a'.repeat(32)}`)).toBeUndefined();
    expect((await listApiKeys(db, 'acme')).map((k) => k.id)).toContain(created.id);
    if (test.dialect === 'sqlite') {
      // the plaintext secret never reaches the database file or its write-ahead log
      for (const f of [test.url, `${test.url}-wal`])
        expect(readFileSync(f).includes(created.key.slice(17))).toBe(false);
    }
    expect(await revokeApiKey(db, created.id)).toBe(true);
    expect(await revokeApiKey(db, created.id)).toBe(false);
    expect(await verifyApiKey(db, created.key)).toBeUndefined();
    await expect(createApiKey(db, '../x')).rejects.toThrow(/invalid tenant id/);
  });

  it('stores scopes and expiry with the key; an expired key verifies to nothing', async () => {
    const db = ctx().database.db;
    const expiresAt = new Date(Date.now() + 60_000);
    const k = await createApiKey(db, 'acme', { scopes: ['jobs:read'], expiresAt, label: 'ro' });
    expect(await verifyApiKey(db, k.key)).toEqual({
      tenantId: 'acme',
      keyId: k.id,
      scopes: ['jobs:read'],
      expiresAt: expiresAt.toISOString(),
    });
    expect(await verifyApiKey(db, k.key, expiresAt.getTime() + 1)).toBeUndefined();
    expect(await liveApiKeyIds(db, [k.id, 'knope'])).toEqual(new Set([k.id]));
    expect(await liveApiKeyIds(db, [k.id], expiresAt.getTime())).toEqual(new Set());
    await expect(
      createApiKey(db, 'acme', { scopes: ['jobs:everything' as 'admin'] }),
    ).rejects.toThrow(/invalid scopes/);
    await expect(createApiKey(db, 'acme', { scopes: [] })).rejects.toThrow(/invalid scopes/);
    const info = (await listApiKeys(db, 'acme')).find((i) => i.id === k.id);
    expect(info).toMatchObject({ scopes: ['jobs:read'], label: 'ro', lastUsedAt: null });
  });

  it('touchApiKeys writes last_used_at for a whole batch in one call', async () => {
    const db = ctx().database.db;
    const a = await createApiKey(db, 'acme');
    const b = await createApiKey(db, 'globex');
    await touchApiKeys(db, [a.id, b.id], '2026-01-02T03:04:05.000Z');
    const used = (await listApiKeys(db)).filter((i) => i.id === a.id || i.id === b.id);
    expect(used.map((i) => i.lastUsedAt)).toEqual([
      '2026-01-02T03:04:05.000Z',
      '2026-01-02T03:04:05.000Z',
    ]);
    const revoked = await createApiKey(db, 'acme');
    await revokeApiKey(db, revoked.id);
    expect(await liveApiKeyIds(db, [a.id, revoked.id])).toEqual(new Set([a.id]));
  });
});

describeEachDialect('files, outbox, locks, events', (ctx) => {
  it('PostgreSQL: one insert of 1,200 events notifies every id in chunks; notifyEvents: false sends nothing', async (t) => {
    const test = ctx();
    if (!test.database.pgPool) return t.skip('LISTEN/NOTIFY exists on PostgreSQL only');
    const listener = await test.database.pgPool.connect();
    const got: string[] = [];
    listener.on('notification', (m) => got.push(m.payload ?? ''));
    await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    const id = formatJobId('v1');
    const many = Array.from({ length: 1200 }, (_, i) => ({
      tenantId: 'acme',
      kind: 'a.b',
      event: { jobId: id, seq: i + 1, at: isoNow(), type: 'progress' as const, data: i },
    }));
    const stored = await test.database.transaction((tx) => insertEvents(tx, many));
    await waitFor(() => got.length >= 3, { timeoutMs: 5000 });
    expect(got.map((p) => p.split(',').length)).toEqual([500, 500, 200]);
    expect(got.flatMap((p) => p.split(',').map(Number))).toEqual(stored.map((e) => e.id));
    const quiet = openDatabase({ url: test.url, notifyEvents: false });
    try {
      got.length = 0;
      await quiet.transaction((tx) =>
        insertEvents(
          tx,
          many.slice(0, 3).map((m) => ({ ...m, event: { ...m.event, jobId: formatJobId('v1') } })),
        ),
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(got).toEqual([]);
    } finally {
      await quiet.close();
      listener.release();
    }
  });
  it('PostgreSQL: every connection runs with JIT off (a misestimated claim was JIT-compiled at ~1.1 s) and custom plans only, notifyEvents: false kept', async (t) => {
    const test = ctx();
    const pool = test.database.pgPool;
    if (!pool) return t.skip('JIT exists on PostgreSQL only');
    const setting = `SELECT current_setting('jit') AS jit, current_setting('plan_cache_mode') AS plans,
      current_setting('sluice.notify', true) AS notify`;
    const plans = 'force_custom_plan';
    expect((await pool.query(setting)).rows[0]).toMatchObject({ jit: 'off', plans });
    const quiet = openDatabase({ url: test.url, notifyEvents: false });
    try {
      expect((await quiet.pgPool?.query(setting))?.rows[0]).toEqual({
        jit: 'off',
        plans,
        notify: 'off',
      });
    } finally {
      await quiet.close();
    }
  });
  const file = (tenantId: string, expiresAt: string | null) => {
    const id = newFileId();
    return {
      id,
      tenantId,
      blobKey: `t/${tenantId}/uploads/${id}`,
      size: 5,
      sha256: 'x',
      contentType: 'text/plain',
      filename: 'a.txt',
      createdAt: isoNow(),
      expiresAt,
    };
  };
  it('files are tenant-scoped; attach stops expiry; delete returns the row', async () => {
    const db = ctx().database.db;
    const a = await insertFile(db, file('acme', isoIn(-1000)));
    const b = await insertFile(db, file('acme', isoIn(60_000)));
    const c = await insertFile(db, file('other', isoIn(-1000)));
    expect(await getFile(db, 'acme', a.id)).toEqual(a);
    expect(await getFile(db, 'other', a.id)).toBeUndefined();
    expect((await getFiles(db, 'acme', [a.id, b.id, c.id])).map((f) => f.id).sort()).toEqual(
      [a.id, b.id].sort(),
    );
    expect((await listFiles(db, 'acme')).length).toBe(2);
    expect((await expiredFiles(db, isoNow())).map((f) => f.id).sort()).toEqual([a.id, c.id].sort());
    await attachFiles(db, [a.id]);
    expect((await expiredFiles(db, isoNow())).map((f) => f.id)).toEqual([c.id]);
    expect(await deleteFile(db, 'acme', c.id)).toBeUndefined();
    expect(await deleteFile(db, 'other', c.id)).toEqual(c);
    expect(await missingFiles(db, [a.id, c.id])).toEqual([c.id]);
  });
  it('outbox returns due job ids and forgets removed ones', async () => {
    const db = ctx().database.db;
    await addToOutbox(db, ['j1', 'j2']);
    await addToOutbox(db, ['j3'], isoIn(60_000));
    expect((await dueOutbox(db, isoNow())).sort()).toEqual(['j1', 'j2']);
    await addToOutbox(db, ['j1'], isoIn(60_000));
    expect(await dueOutbox(db, isoNow())).toEqual(['j2']);
    expect((await dueOutbox(db, isoIn(120_000))).sort()).toEqual(['j1', 'j2', 'j3']);
    await removeFromOutbox(db, ['j1', 'j2', 'j3']);
    expect(await dueOutbox(db, isoIn(120_000))).toEqual([]);
  });
  it('a lock has one holder until it expires or is released', async () => {
    const db = ctx().database.db;
    const t0 = Date.now();
    expect(await acquireLock(db, 'reconciler', 'a', 1000, t0)).toBe(true);
    expect(await acquireLock(db, 'reconciler', 'b', 1000, t0 + 10)).toBe(false);
    expect(await acquireLock(db, 'reconciler', 'a', 1000, t0 + 500)).toBe(true);
    expect(await acquireLock(db, 'reconciler', 'b', 1000, t0 + 1200)).toBe(false);
    expect(await acquireLock(db, 'reconciler', 'b', 1000, t0 + 1600)).toBe(true);
    await releaseLock(db, 'reconciler', 'a');
    expect(await acquireLock(db, 'reconciler', 'a', 1000, t0 + 1700)).toBe(false);
    await releaseLock(db, 'reconciler', 'b');
    expect(await acquireLock(db, 'reconciler', 'a', 1000, t0 + 1700)).toBe(true);
  });
  it('events are readable by global id, and PostgreSQL notifies after commit', async () => {
    const test = ctx();
    const before = await maxEventId(test.database.db);
    let notified: Promise<unknown[]> | undefined;
    let listener: PoolClient | undefined;
    if (test.database.pgPool) {
      listener = await test.database.pgPool.connect();
      await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
      notified = once(listener, 'notification');
    }
    const id = formatJobId('v1');
    await test.database.transaction((tx) =>
      insertJob(tx, {
        id,
        tenantId: 'acme',
        kind: 'demo.x',
        version: 'v1',
        input: {},
        inputHash: 'h',
        maxAttempts: 1,
      }),
    );
    const since = await eventsSince(test.database.db, before);
    expect(since).toHaveLength(1);
    expect(since[0]).toMatchObject({
      tenantId: 'acme',
      kind: 'demo.x',
      event: { jobId: id, seq: 1, to: 'accepted' },
    });
    expect(await eventsByIds(test.database.db, [since[0]!.id])).toEqual(since);
    expect(await maxEventId(test.database.db)).toBe(since[0]!.id);
    if (notified && listener) {
      const [msg] = (await notified) as [{ channel: string; payload: string }];
      expect(msg.channel).toBe(EVENTS_CHANNEL);
      expect(msg.payload).toBe(String(since[0]!.id));
      listener.release();
    }
  });
});
