// Retention through a real gateway: the legal hold at submit and by `jobs.hold` (scope
// `jobs:manage`), an idempotency key that expires with its job, one replica at a time under the
// `retention` lock, the figures on /metrics, and a wrong setting refused at construction.
import { acquireLock, isoNow, releaseLock } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { createApiKey } from '@sluice/storage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGateway } from '../create-gateway.js';
import { createEmbeddedDispatcher } from '../runtimes/embedded.js';
import {
  errorOf,
  silentLogger,
  startGateway,
  testJobs,
  type GatewayFixture,
} from '../testing/fixture.js';
import { RETENTION_LOCK } from './run-retention-pass.js';

const DAY = 86_400_000;

describeEachDialect('retention sweeper', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx(), { retention: { tenants: { acme: { failed: '2d' } } } });
  });
  afterAll(async () => {
    await f?.close();
  });

  /** Ends a job as a worker would have, `ageMs` ago. */
  const endJob = (id: string, state: string, ageMs: number) =>
    ctx()
      .database.db.updateTable('jobs')
      .set({
        state,
        updated_at: isoNow(Date.now() - ageMs),
        finished_at: isoNow(Date.now() - ageMs),
      })
      .where('id', '=', id)
      .execute();
  const exists = async (id: string) =>
    (await ctx()
      .database.db.selectFrom('jobs')
      .select('id')
      .where('id', '=', id)
      .executeTakeFirst()) !== undefined;

  it('a hold set at submit or by jobs.hold keeps a job; lifting it lets the next pass remove it', async () => {
    const client = f.http(f.keyA);
    const atSubmit = await client.jobs.submit.mutate({
      kind: 'demo.echo',
      input: { text: 'a' },
      hold: true,
    });
    const later = await client.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'b' } });
    expect((await client.jobs.get.query({ id: atSubmit.id })).hold).toBe(true);
    expect((await client.jobs.get.query({ id: later.id })).hold).toBe(false);

    // jobs:manage (or admin) sets it; a key without the scope is refused and changes nothing
    const manager = await createApiKey(ctx().database.db, 'acme', { scopes: ['jobs:manage'] });
    const refused = await errorOf(client.jobs.hold.mutate({ id: later.id, hold: true }));
    expect(refused.data).toMatchObject({ code: 'FORBIDDEN' });
    expect(await f.http(manager.key).jobs.hold.mutate({ id: later.id, hold: true })).toEqual({
      id: later.id,
      hold: true,
    });
    // another tenant's key with the scope sees no such job
    const foreign = await createApiKey(ctx().database.db, 'globex', { scopes: ['jobs:manage'] });
    const notFound = await errorOf(
      f.http(foreign.key).jobs.hold.mutate({ id: later.id, hold: false }),
    );
    expect(notFound.data).toMatchObject({ code: 'NOT_FOUND' });

    await endJob(atSubmit.id, 'succeeded', 30 * DAY);
    await endJob(later.id, 'failed', 60 * DAY);
    await f.gateway.sweepRetention();
    expect(await exists(atSubmit.id)).toBe(true);
    expect(await exists(later.id)).toBe(true);
    await f.http(f.adminKey).jobs.hold.mutate({ id: later.id, hold: false });
    const pass = await f.gateway.sweepRetention();
    expect(pass?.jobs).toBe(1);
    expect(await exists(later.id)).toBe(false);
    expect(await exists(atSubmit.id)).toBe(true);
  });

  it('an idempotency key expires with its job: the same submit then creates a new job', async () => {
    const client = f.http(f.keyA);
    const submit = () =>
      client.jobs.submit.mutate({
        kind: 'demo.echo',
        input: { text: 'once' },
        idempotencyKey: 'k-1',
      });
    const first = await submit();
    expect(await submit()).toMatchObject({ id: first.id, isDuplicate: true });
    // the tenant's own rule (2 d for failed) decides, not the kind's or the built-in 30 d
    await endJob(first.id, 'failed', 3 * DAY);
    await f.gateway.sweepRetention();
    const again = await submit();
    expect(again.isDuplicate).toBe(false);
    expect(again.id).not.toBe(first.id);
  });

  it('runs on one replica at a time: while another holds the lock a pass removes nothing', async () => {
    const job = await f
      .http(f.keyA)
      .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'c' } });
    await endJob(job.id, 'succeeded', 10 * DAY);
    const db = ctx().database.db;
    expect(await acquireLock(db, RETENTION_LOCK, 'another-replica', 60_000)).toBe(true);
    expect(await f.gateway.sweepRetention()).toBeUndefined();
    expect(await exists(job.id)).toBe(true);
    await releaseLock(db, RETENTION_LOCK, 'another-replica');
    expect((await f.gateway.sweepRetention())?.jobs).toBe(1);
    expect(await exists(job.id)).toBe(false);
  });

  it('shows rows and bytes per table, what it removed, the oldest ended job and the lag', async () => {
    const job = await f
      .http(f.keyA)
      .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'd' } });
    await endJob(job.id, 'cancelled', 40 * DAY);
    const db = ctx().database.db;
    // Another replica holds the lock and does not sweep: the figures still come, and show it.
    await acquireLock(db, RETENTION_LOCK, 'a-stuck-replica', 60_000);
    expect(await f.gateway.sweepRetention()).toBeUndefined();
    let text = await f.metricsText();
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    // 40 days in `cancelled`, kept 30: 10 days overdue
    expect(gauge('sluice_retention_lag_seconds')).toBeGreaterThanOrEqual(10 * 86_400 - 60);
    expect(gauge('sluice_retention_lag_seconds')).toBeLessThan(10 * 86_400 + 60);
    expect(gauge('sluice_retention_oldest_finished_age_seconds')).toBeGreaterThanOrEqual(
      40 * 86_400 - 60,
    );
    await releaseLock(db, RETENTION_LOCK, 'a-stuck-replica');
    expect((await f.gateway.sweepRetention())?.jobs).toBe(1);
    text = await f.metricsText();
    expect(gauge('sluice_retention_lag_seconds')).toBe(0);
    expect(text).toMatch(/^sluice_retention_removed_jobs_total\{state="cancelled"\} [1-9]/m);
    expect(text).toMatch(/^sluice_retention_removed_rows_total\{table="job_events"\} [1-9]/m);
    expect(text).toMatch(/^sluice_retention_passes_total\{outcome="complete"\} [1-9]/m);
    expect(text).toMatch(/^sluice_table_rows\{table="jobs"\} \d+$/m);
    expect(text).toMatch(/^sluice_table_bytes\{table="job_events"\} [1-9]\d*$/m);
  });

  it('a wrong retention setting is refused at construction, naming the field', () => {
    const make = (retention: unknown) => () =>
      createGateway({
        jobs: testJobs,
        database: ctx().database,
        blobs: f.blobs,
        runtime: createEmbeddedDispatcher(ctx().database),
        logger: silentLogger,
        retention: retention as never,
      });
    expect(make({ tenants: { acme: { failed: 'a fortnight' } } })).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        details: { field: 'retention.tenants.acme.failed' },
      }),
    );
    expect(make({ batchSize: 0 })).toThrow(/retention\.batchSize/);
  });
});
