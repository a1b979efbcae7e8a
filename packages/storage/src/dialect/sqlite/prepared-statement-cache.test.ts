// The SQLite statement cache: a statement is prepared once per SQL text, the cache stays within
// its bound, and a statement still being iterated is never handed out again (better-sqlite3
// throws "This statement is busy executing a query" if it were).
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { cachePreparedStatements } from './prepared-statement-cache.js';

const open: SQLite.Database[] = [];
function counted() {
  const raw = new SQLite(':memory:');
  open.push(raw);
  let prepares = 0;
  const prepare = raw.prepare.bind(raw);
  const counting = Object.assign(Object.create(raw) as SQLite.Database, {
    prepare: (sql: string) => {
      prepares++;
      return prepare(sql);
    },
    close: () => raw.close(),
  });
  return { raw, counting, prepares: () => prepares };
}

afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
});

it('prepares each SQL text once and reuses the statement', async () => {
  const { counting, prepares } = counted();
  const cached = cachePreparedStatements(counting);
  const db = new Kysely<{ t: { a: number } }>({ dialect: new SqliteDialect({ database: cached }) });
  await db.executeQuery(CompiledQuery.raw('create table t (a integer)'));
  for (let i = 0; i < 50; i++) await db.insertInto('t').values({ a: i }).execute();
  const rows = await db.selectFrom('t').selectAll().where('a', '<', 3).orderBy('a').execute();
  expect(rows).toEqual([{ a: 0 }, { a: 1 }, { a: 2 }]);
  expect(await db.selectFrom('t').select('a').where('a', '=', 7).execute()).toEqual([{ a: 7 }]);
  // create, insert, and the two selects.
  expect(prepares()).toBe(4);
  await db.destroy();
});

it('keeps at most maxEntries statements, evicting the least recently used', () => {
  const { counting, prepares } = counted();
  const cached = cachePreparedStatements(counting, 2);
  cached.prepare('select 1');
  cached.prepare('select 2');
  cached.prepare('select 1'); // 1 is now the most recent
  cached.prepare('select 3'); // evicts 2
  expect(cached.cacheSize).toBe(2);
  expect(prepares()).toBe(3);
  cached.prepare('select 1');
  expect(prepares()).toBe(3);
  cached.prepare('select 2');
  expect(prepares()).toBe(4);
});

it('hands out a fresh statement while the cached one is being iterated', () => {
  const { raw, counting } = counted();
  raw.exec('create table t (a integer); insert into t values (1), (2), (3)');
  const cached = cachePreparedStatements(counting);
  const sql = 'select a from t order by a';
  const outer = cached.prepare(sql);
  const seen: unknown[] = [];
  for (const row of outer.iterate([])) {
    const inner = cached.prepare(sql);
    expect(inner).not.toBe(outer);
    seen.push(row, inner.all([]).length);
  }
  expect(seen).toEqual([{ a: 1 }, 3, { a: 2 }, 3, { a: 3 }, 3]);
  expect(cached.prepare(sql)).toBe(outer);
});
