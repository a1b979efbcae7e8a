// Catches a dialect whose declared capabilities are not what its database does: code reads these
// flags instead of the database's name (a batch where there is none, a row lock SQLite cannot
// parse, chunks sized for a parameter limit the database does not have), so a wrong flag is a
// wrong statement on one database only. Run on every database (storage-dialect.test.ts: SQLite
// and PostgreSQL; workerd/storage-d1.test.ts: D1).
import { sql } from 'kysely';
import { expect } from 'vitest';
import { repoWrite, suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { dialectOf } from './storage-dialect.js';

/** `select 1 … where 1 in (?, …)` binding `n` parameters. */
const binding = (n: number) =>
  sql<{ one: number }>`select 1 as one where 1 in (${sql.join(
    Array.from({ length: n }, (_, i) => i + 1),
  )})`;

export function storageDialectCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);

  it('every handle and transaction reaches the database’s own dialect', async () => {
    const { database } = ctx();
    const { dialect } = database;
    expect(database.capabilities).toBe(dialect.capabilities);
    expect(dialectOf(database.db).name).toBe(dialect.name);
    expect(dialectOf(database.db).capabilities).toEqual(dialect.capabilities);
    await repoWrite(database, async (tx) => {
      expect(dialectOf(tx).capabilities).toEqual(dialect.capabilities);
    });
  });

  it('a transaction runs exactly where interactiveTransactions says so', async () => {
    const { database } = ctx();
    const run = database.transaction(async (tx) => (await binding(1).execute(tx)).rows.length);
    if (database.capabilities.interactiveTransactions) await expect(run).resolves.toBe(1);
    else await expect(run).rejects.toThrow();
  });

  it('an atomic batch is there exactly where atomicBatch says so, and runs in order', async () => {
    const { database } = ctx();
    const batch = dialectOf(database.db).atomicBatch;
    expect(batch !== undefined).toBe(database.capabilities.atomicBatch);
    if (!batch) return;
    const results = await batch.run<{ one: number }>([
      binding(1).compile(database.db),
      binding(2).compile(database.db),
    ]);
    expect(results.map((r) => r.rows)).toEqual([[{ one: 1 }], [{ one: 1 }]]);
  });

  it('rows can be locked for update exactly where rowLocks says so', async () => {
    const { database } = ctx();
    const lock = (tx: typeof database.db) =>
      tx.selectFrom('jobs').select('id').limit(1).forUpdate().execute();
    const run = repoWrite(database, lock);
    if (database.capabilities.rowLocks) await expect(run).resolves.toBeDefined();
    else await expect(run).rejects.toThrow();
  });

  it('a statement binds exactly maxBoundParameters, and no more', async () => {
    const { database } = ctx();
    const max = database.capabilities.maxBoundParameters;
    await expect(binding(max).execute(database.db)).resolves.toMatchObject({ rows: [{ one: 1 }] });
    await expect(binding(max + 1).execute(database.db)).rejects.toThrow();
  }, 30_000);
  done();
}
