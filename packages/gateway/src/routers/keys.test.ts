// Catches a key API that reaches across tenants or writes on a refusal: `keys.*` needs `admin`;
// create and revoke write the key and its audit row together; revoking another tenant's key
// answers NOT_FOUND and leaves it live; a refused create (bad scope, past expiry, unknown field)
// writes nothing.
import { createApiKey, listApiKeys, listAudit } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { errorOf, startGateway, type GatewayFixture } from '../testing/fixture.js';

describeEachDialect('keys.list, keys.create, keys.revoke', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f.close();
  });

  it('an admin creates, lists and revokes its own tenant’s keys, each audited', async () => {
    const admin = f.http(f.adminKey);
    const made = await admin.keys.create.mutate({
      label: 'ci bot',
      scopes: ['jobs:read'],
      note: 'nightly export',
    });
    expect(made).toMatchObject({ label: 'ci bot', scopes: ['jobs:read'], revokedAt: null });
    expect((await f.http(made.key).auth.whoami.query()).keyId).toBe(made.id);
    expect((await admin.keys.list.query()).items.map((k) => k.id)).toContain(made.id);
    const revoked = await admin.keys.revoke.mutate({ id: made.id, note: 'rotated' });
    expect(revoked.revokedAt).not.toBeNull();
    // Again: unchanged, and not audited twice.
    await admin.keys.revoke.mutate({ id: made.id });
    const audit = await listAudit(
      ctx().database.db,
      { tenantId: 'acme', target: made.id },
      { limit: 10 },
    );
    expect(audit.items.map((e) => [e.action, e.note])).toEqual([
      ['key.revoke', 'rotated'],
      ['key.create', 'nightly export'],
    ]);
  });

  it('reaches no other tenant, needs admin, and a refusal writes nothing', async () => {
    const other = await createApiKey(ctx().database.db, 'globex', { label: 'theirs' });
    const admin = f.http(f.adminKey);
    expect((await errorOf(admin.keys.revoke.mutate({ id: other.id }))).data).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(
      (await listApiKeys(ctx().database.db, 'globex')).find((k) => k.id === other.id),
    ).toMatchObject({ revokedAt: null });
    expect((await admin.keys.list.query()).items.map((k) => k.id)).not.toContain(other.id);
    expect((await errorOf(f.http(f.keyA).keys.list.query())).data).toMatchObject({
      code: 'FORBIDDEN',
    });
    const before = await f.counts();
    const keysBefore = (await listApiKeys(ctx().database.db)).length;
    for (const bad of [
      { label: 'x', scopes: ['root'] },
      { label: 'x', scopes: ['jobs:read'], expiresAt: '2001-01-01T00:00:00Z' },
      { label: 'x', scopes: ['jobs:read'], tenant: 'globex' },
      { label: '', scopes: ['jobs:read'] },
    ]) {
      expect(
        (await errorOf(admin.keys.create.mutate(bad as never))).data,
        JSON.stringify(bad),
      ).toMatchObject({ code: 'BAD_REQUEST' });
    }
    expect((await listApiKeys(ctx().database.db)).length).toBe(keysBefore);
    expect(await f.counts()).toEqual(before);
  });
});
