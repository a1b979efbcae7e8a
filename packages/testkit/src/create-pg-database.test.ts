import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { createPgDatabase, pgAdminUrl, pgAvailable } from './create-pg-database.js';

async function databaseExists(name: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: pgAdminUrl() });
  await admin.connect();
  try {
    const result = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return result.rows.length === 1;
  } finally {
    await admin.end();
  }
}

const available = await pgAvailable();

describe.skipIf(!available)('createPgDatabase', () => {
  test('creates a fresh database and drops it even with a connection open', async () => {
    const db = await createPgDatabase({ prefix: 'testkit' });
    expect(db.name).toMatch(new RegExp(`^testkit_${process.pid}_[0-9a-f]{8}$`));
    const conn = new pg.Client({ connectionString: db.url });
    conn.on('error', () => undefined);
    await conn.connect();
    const { rows } = await conn.query<{ db: string }>('SELECT current_database() AS db');
    expect(rows[0]?.db).toBe(db.name);
    expect(await databaseExists(db.name)).toBe(true);
    await db.drop();
    await db.drop(); // idempotent
    expect(await databaseExists(db.name)).toBe(false);
    await conn.end().catch(() => undefined);
  });

  test('await using drops it; names differ', async () => {
    let first: string;
    {
      await using a = await createPgDatabase();
      await using b = await createPgDatabase();
      expect(a.name).not.toBe(b.name);
      expect(a.name.startsWith('sluice_test_')).toBe(true);
      first = a.name;
    }
    expect(await databaseExists(first)).toBe(false);
  });
});

test('pgAvailable is false quickly for a closed port', async () => {
  const saved = process.env.PG_ADMIN_URL;
  process.env.PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:1/postgres';
  try {
    const started = Date.now();
    expect(await pgAvailable()).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_500);
  } finally {
    if (saved === undefined) delete process.env.PG_ADMIN_URL;
    else process.env.PG_ADMIN_URL = saved;
  }
});
