// `describe` for the workerd run: the shared suites against a D1 binding, migrated once per file.
// Runtime-neutral (the binding comes from the caller's `cloudflare:workers` env).
import { beforeAll, describe } from 'vitest';
import type { D1Like } from '../d1/d1-like.js';
import { openD1Database } from '../d1/open-d1.js';
import { migrate } from '../migrations.js';
import type { SuiteDatabase } from './suite.js';

export function describeD1(
  name: string,
  d1: D1Like,
  body: (ctx: () => SuiteDatabase) => void,
): void {
  describe(`${name} [d1]`, () => {
    const database = openD1Database(d1);
    beforeAll(async () => {
      await migrate(database);
    });
    body(() => ({ database, open: () => openD1Database(d1) }));
  });
}
