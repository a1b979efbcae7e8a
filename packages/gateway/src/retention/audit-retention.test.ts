// The audit log's retention (`retention.audit`): without it nothing is pruned; with it the
// sweeper prunes entries older than the setting through the recorded horizon, keeps everything
// newer and records a horizon only when it removes something; a setting under a day is refused.
// The cases share one database per dialect and run in order.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendAudit, createLocalBlobStore } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterEach, expect, it } from 'vitest';
import { createGateway } from '../create-gateway.js';
import { createEmbeddedDispatcher } from '../runtimes/embedded.js';
import { silentLogger, startGateway, testJobs, type GatewayFixture } from '../testing/fixture.js';

const DAY = 86_400_000;

describeEachDialect('audit log retention', (ctx) => {
  let f: GatewayFixture | undefined;
  afterEach(async () => {
    await f?.close();
    f = undefined;
  });

  const entry = (action: string) => ({
    tenantId: 'acme',
    keyId: null,
    action,
    target: null,
    note: null,
  });
  const actions = async () =>
    (await ctx().database.db.selectFrom('audit_log').select('action').orderBy('at').execute()).map(
      (r) => r.action,
    );
  const horizons = async () =>
    ctx().database.db.selectFrom('audit_prunes').select(['before', 'by']).execute();

  it('without the setting the audit log is kept whatever its age', async () => {
    f = await startGateway(ctx(), { retention: { default: { succeeded: '1d' } } });
    const now = Date.now();
    await appendAudit(ctx().database.db, [entry('ancient')], now - 3000 * DAY);
    expect((await f.gateway.sweepRetention(now))?.auditRows).toBe(0);
    expect(await actions()).toContain('ancient');
    expect(await horizons()).toEqual([]);
  });

  it('with the setting, entries older are removed and newer kept; a horizon only when it removed', async () => {
    f = await startGateway(ctx(), { retention: { audit: '30d' } });
    const db = ctx().database.db;
    const now = Date.now();
    await appendAudit(db, [entry('old.one'), entry('old.two')], now - 40 * DAY);
    await appendAudit(db, [entry('recent')], now - 10 * DAY);
    expect(await horizons()).toEqual([]);

    const pass = await f.gateway.sweepRetention(now);
    // the earlier case's 'ancient' entry goes too
    expect(pass?.auditRows).toBe(3);
    expect(await actions()).toEqual(['recent']);
    const [horizon] = await horizons();
    expect(horizon?.by).toBe('retention');
    expect(Date.parse(horizon!.before)).toBe(now - 30 * DAY);

    // Nothing older left: the next pass removes nothing and records no second horizon.
    expect((await f.gateway.sweepRetention(now + 60_000))?.auditRows).toBe(0);
    expect(await horizons()).toHaveLength(1);
  });

  it('a setting under a day is refused at construction, naming the field', async () => {
    const blobs = createLocalBlobStore(mkdtempSync(join(tmpdir(), 'sluice-audit-retention-')));
    const make = (audit: unknown) => () =>
      createGateway({
        jobs: testJobs,
        database: ctx().database,
        blobs,
        runtime: createEmbeddedDispatcher(ctx().database),
        logger: silentLogger,
        retention: { audit } as never,
      });
    expect(make('1h')).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG', details: { field: 'retention.audit' } }),
    );
    for (const ok of ['1d', 'forever']) await make(ok)().close();
  });
});
