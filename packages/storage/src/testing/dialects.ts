// Runs a suite once per dialect against real databases: a fresh SQLite file and a fresh
// PostgreSQL database (the machine's server; created and dropped per suite). PostgreSQL is
// required: set SLUICE_TEST_PG=0 to skip it explicitly on a machine without it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgDatabase, type PgDatabase } from '@sluice/testkit';
import { afterAll, beforeAll, describe } from 'vitest';
import type { DialectName, SluiceDatabase } from '../database.js';
import { openDatabase } from '../open-database.js';
import { migrate } from '../migrations.js';

export const TEST_DIALECTS: DialectName[] =
  process.env.SLUICE_TEST_PG === '0' ? ['sqlite'] : ['sqlite', 'postgres'];

export interface TestDatabase {
  readonly dialect: DialectName;
  /** The URL another process can open (a SQLite file path or a postgres:// URL). */
  readonly url: string;
  readonly database: SluiceDatabase;
  /** Opens a second, independent handle on the same database (like another process). */
  open(): SluiceDatabase;
  dispose(): Promise<void>;
}

export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  let pg: PgDatabase | undefined;
  let dir: string | undefined;
  let url: string;
  if (dialect === 'postgres') {
    pg = await createPgDatabase({ prefix: 'sluice_test' });
    url = pg.url;
  } else {
    dir = mkdtempSync(join(tmpdir(), 'sluice-db-'));
    url = join(dir, 'sluice.db');
  }
  const database = openDatabase({ url, poolSize: 5 });
  await migrate(database);
  const extra: SluiceDatabase[] = [];
  return {
    dialect,
    url,
    database,
    open() {
      const d = openDatabase({ url, poolSize: 5 });
      extra.push(d);
      return d;
    },
    async dispose() {
      for (const d of extra) await d.close().catch(() => {});
      await database.close().catch(() => {});
      if (pg) await pg.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `describe` once per dialect with a migrated database shared by the suite. */
export function describeEachDialect(
  name: string,
  body: (ctx: () => TestDatabase, dialect: DialectName) => void,
): void {
  for (const dialect of TEST_DIALECTS) {
    describe(`${name} [${dialect}]`, () => {
      let test: TestDatabase | undefined;
      beforeAll(async () => {
        test = await createTestDatabase(dialect);
      });
      // Closing the pools and dropping a PostgreSQL database can take well past the default hook
      // timeout while every other suite loads the same two cores (seen once in a full run).
      afterAll(async () => {
        await test?.dispose();
      }, 120_000);
      body(() => {
        if (!test) throw new Error('test database not ready');
        return test;
      }, dialect);
    });
  }
}
