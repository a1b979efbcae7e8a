// An operator's change and its audit entry are written together: when the audit entry cannot be
// written, the change is not kept either (and the caller gets an error), so the log never misses
// a change that happened. The database is made to refuse one audit action with a trigger, the
// way a full disk or a lost connection would refuse it mid-request.
import { sql } from 'kysely';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

describeEachDialect('audit written with the change', (ctx, dialect) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f?.close();
  });

  /** Makes the database refuse audit entries of `action` (as a failed write would). */
  const refuse = async (action: string) => {
    const db = ctx().database.db;
    const name = `refuse_${action.replace('.', '_')}`;
    if (dialect === 'sqlite') {
      await sql
        .raw(
          `create trigger ${name} before insert on audit_log when new.action = '${action}'
           begin select raise(abort, 'audit refused'); end`,
        )
        .execute(db);
    } else {
      await sql
        .raw(
          `create function ${name}() returns trigger language plpgsql as $$
           begin raise exception 'audit refused'; end $$;
           create trigger ${name} before insert on audit_log for each row
           when (new.action = '${action}') execute function ${name}()`,
        )
        .execute(db);
    }
  };
  const count = async (table: 'schedules' | 'audit_log') =>
    Number(
      (
        await ctx()
          .database.db.selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('a schedule whose audit entry fails is not created', async () => {
    await refuse('schedule.create');
    const before = { schedules: await count('schedules'), audit: await count('audit_log') };
    const e = await errorOf(
      f.http(f.keyA).schedules.create.mutate({
        kind: 'demo.copy',
        input: { text: 'x' },
        cron: '0 * * * *',
        name: 'unaudited',
      }),
    );
    expect(e.message).toMatch(/./);
    expect({ schedules: await count('schedules'), audit: await count('audit_log') }).toEqual(
      before,
    );
  });

  it('a legal hold whose audit entry fails is not set', async () => {
    const c = f.http(f.keyA);
    const job = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'h' } });
    await refuse('job.hold');
    await errorOf(f.http(f.adminKey).jobs.hold.mutate({ id: job.id, hold: true }));
    expect((await c.jobs.get.query({ id: job.id })).hold).toBe(false);
  });
});
