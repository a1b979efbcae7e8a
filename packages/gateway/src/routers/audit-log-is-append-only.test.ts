// Catches an audit log that forgets or can be rewritten: every operator action (approve with its
// required note, discard, requeue, rerun, cancel, hold, schedule changes) is recorded with who
// (key id and label), when, what and why; the list filters and pages; the JSON-lines export
// carries the same entries; another tenant sees none of them; and the database itself refuses to
// UPDATE any row or DELETE one newer than a recorded prune horizon.
import { AUDIT_EXPORT_PATH } from '@sluice/contracts';
import { createApiKey, pruneAudit } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deadLetterJob, startJob, succeedJob } from '../testing/drive.js';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

describeEachDialect('audit log', (ctx) => {
  let f: GatewayFixture;
  let operatorKey: string;
  let operatorId: string;
  beforeAll(async () => {
    f = await startGateway(ctx());
    const k = await createApiKey(ctx().database.db, 'acme', {
      scopes: ['jobs:submit', 'jobs:read', 'jobs:manage', 'review:decide'],
      label: 'night operator',
    });
    operatorKey = k.key;
    operatorId = k.id;
  });
  afterAll(async () => {
    await f.close();
  });

  it('records who, when, what and why for every operator action', async () => {
    const c = f.http(operatorKey);
    const { database } = ctx();
    const dead = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'dl' } });
    await deadLetterJob(database, dead.id);
    await c.jobs.requeue.mutate({ id: dead.id, note: 'provider back' });
    const done = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'done' } });
    await succeedJob(database, done.id, await startJob(database, done.id), { text: 'x' });
    await c.jobs.rerun.mutate({ id: done.id, note: 'new code' });
    await c.jobs.cancel.mutate({ id: done.id });
    await c.jobs.hold.mutate({ id: dead.id, hold: true });
    const s = await c.schedules.create.mutate({
      kind: 'demo.echo',
      input: { text: 's' },
      cron: '0 * * * *',
    });
    await c.schedules.pause.mutate({ id: s.id });

    const page = await c.audit.list.query({});
    expect(page.items.map((e) => [e.action, e.target]).reverse()).toEqual([
      ['job.requeue', dead.id],
      ['job.rerun', done.id],
      ['job.cancel', done.id],
      ['job.hold', dead.id],
      ['schedule.create', s.id],
      ['schedule.pause', s.id],
    ]);
    for (const e of page.items) {
      expect(e).toMatchObject({ keyId: operatorId, keyLabel: 'night operator' });
      expect(Date.parse(e.at)).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(page.items.find((e) => e.action === 'job.requeue')).toMatchObject({
      note: 'provider back',
      details: { from: 'dead_lettered', to: 'queued', kind: 'demo.echo' },
    });
    const reruns = await c.audit.list.query({ action: 'job.rerun' });
    expect(reruns.items.map((e) => e.note)).toEqual(['new code']);
    const one = await c.audit.list.query({ limit: 1 });
    const two = await c.audit.list.query({ limit: 1, cursor: one.nextCursor });
    expect(two.items[0]?.id).not.toBe(one.items[0]?.id);
    const globex = await createApiKey(ctx().database.db, 'globex', { scopes: ['jobs:manage'] });
    expect((await f.http(globex.key).audit.list.query({})).items).toEqual([]);
  });

  it('an approval needs a note and records it; a key without jobs:manage cannot read the log', async () => {
    const c = f.http(operatorKey);
    const noNote = await errorOf(
      c.review.approve.mutate({ id: 'v1-aaaaaaaaaaaaaaaaaaaaaaaaaa', note: '' }),
    );
    expect(noNote.data).toMatchObject({ code: 'BAD_REQUEST' });
    const denied = await errorOf(f.http(f.keyA).audit.list.query({}));
    expect(denied.data).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('exports the same entries as JSON lines, filtered', async () => {
    const res = await fetch(`${f.url}${AUDIT_EXPORT_PATH}?action=job.rerun`, {
      headers: { authorization: `Bearer ${operatorKey}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([expect.objectContaining({ action: 'job.rerun', note: 'new code' })]);
    const bad = await fetch(`${f.url}${AUDIT_EXPORT_PATH}?action=nope`, {
      headers: { authorization: `Bearer ${operatorKey}` },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/^action: /);
    const anonymous = await fetch(`${f.url}${AUDIT_EXPORT_PATH}`);
    expect(anonymous.status).toBe(401);
  });

  it('the database refuses to update or delete audit rows; only a recorded prune removes old ones', async () => {
    const db = ctx().database.db;
    const before = Number(
      (await sql<{ n: string }>`select count(*) as n from audit_log`.execute(db)).rows[0]?.n,
    );
    expect(before).toBeGreaterThan(0);
    await expect(sql`update audit_log set note = 'rewritten'`.execute(db)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql`delete from audit_log`.execute(db)).rejects.toThrow(/append-only/);
    // A horizon closer than a day is refused; an old one removes nothing newer than itself.
    await expect(
      ctx().database.transaction((tx) => pruneAudit(tx, new Date().toISOString(), 'test')),
    ).rejects.toThrow(/a day old/);
    const horizon = new Date(Date.now() - 2 * 86_400_000).toISOString();
    expect(await ctx().database.transaction((tx) => pruneAudit(tx, horizon, 'test'))).toBe(0);
    const after = Number(
      (await sql<{ n: string }>`select count(*) as n from audit_log`.execute(db)).rows[0]?.n,
    );
    expect(after).toBe(before);
    // The prune's own record cannot be taken back either.
    await expect(sql`delete from audit_prunes`.execute(db)).rejects.toThrow(/append-only/);
    await expect(sql`update audit_prunes set by = 'someone'`.execute(db)).rejects.toThrow(
      /append-only/,
    );
  });
});
