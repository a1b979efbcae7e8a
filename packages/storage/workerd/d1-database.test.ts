// The D1 database handle. The migration set that SQLite and PostgreSQL run applies to D1
// unchanged (per statement: D1 has no transactional DDL here either), a second run applies
// nothing, and `transaction(fn)` refuses before running anything.
import { bindings as env } from './bindings.js';
import { expect, it } from 'vitest';
import { openD1Database } from '../src/dialect/d1/open-d1.js';
import { migrate, migrationsFor } from '../src/migrations.js';

it('applies every migration to D1 once, then nothing', async () => {
  const database = openD1Database(env.DB);
  const first = await migrate(database);
  expect(first).toEqual(Object.keys(migrationsFor(database.dialect)));
  expect(await migrate(database)).toEqual([]);
  const tables = await env.DB.prepare(
    "select name from sqlite_master where type = 'table' and name not like '\\_cf\\_%' escape '\\' order by name",
  )
    .bind()
    .all<{ name: string }>();
  expect(tables.results.map((t) => t.name)).toEqual(
    expect.arrayContaining(['jobs', 'job_events', 'units', 'outbox', 'assets', 'asset_owners']),
  );
  expect(tables.results.map((t) => t.name)).not.toContain('queue'); // dropped by 0005
  const indexes = await env.DB.prepare("select name from sqlite_master where type = 'index'")
    .bind()
    .all<{ name: string }>();
  expect(indexes.results.map((i) => i.name)).toEqual(
    expect.arrayContaining(['jobs_queued', 'jobs_running', 'jobs_idempotency']),
  );
  // 0007: key scopes (with the legacy default) and expiry.
  const keyColumns = await env.DB.prepare(
    "select name, dflt_value from pragma_table_info('api_keys')",
  )
    .bind()
    .all<{ name: string; dflt_value: string | null }>();
  expect(keyColumns.results).toEqual(
    expect.arrayContaining([
      { name: 'scopes', dflt_value: "'jobs:submit jobs:read review:decide dead-letters:manage'" },
      { name: 'expires_at', dflt_value: null },
    ]),
  );
});

it('says it has no interactive transactions, and a transaction writes nothing', async () => {
  const database = openD1Database(env.DB);
  expect(database.capabilities.interactiveTransactions).toBe(false);
  expect(database.dialect.capabilities).toMatchObject({
    atomicBatch: true,
    maxBoundParameters: 100,
  });
  expect(database.dialect.atomicBatch).toBeDefined();
  let ran = false;
  await expect(
    database.transaction(async () => {
      ran = true;
    }),
  ).rejects.toMatchObject({ code: 'INTERNAL' });
  expect(ran).toBe(false); // never half-run: the callback is not called at all
});
