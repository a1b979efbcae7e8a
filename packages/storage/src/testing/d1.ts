// `describe` for the workerd run: the shared suites against a D1 binding, migrated and emptied
// before each suite.
// Runtime-neutral (the binding comes from the caller's `cloudflare:workers` env).
import { beforeAll, describe } from 'vitest';
import { d1All, type D1Like } from '../dialect/d1/d1-like.js';
import { openD1Database } from '../dialect/d1/open-d1.js';
import { migrate } from '../migrations.js';
import type { SuiteDatabase } from './suite.js';

export function describeD1(
  name: string,
  d1: D1Like,
  body: (ctx: () => SuiteDatabase) => void,
): void {
  describe(`${name} [d1]`, () => {
    const database = openD1Database(d1);
    // A fresh database per suite, as the Node run creates one: every suite of a file shares
    // the binding, so the rows of the suites before are deleted (schema and migrations stay).
    beforeAll(async () => {
      await migrate(database);
      const tables = await d1All<{ name: string }>(
        d1,
        `select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\'
          and name not like '\\_cf\\_%' escape '\\' and name not like 'kysely\\_%' escape '\\'`,
      );
      if (tables.length > 0)
        await d1.batch(tables.map((t) => d1.prepare(`delete from "${t.name}"`)));
    });
    body(() => ({ database, open: () => openD1Database(d1) }));
  });
}
