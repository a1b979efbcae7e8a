// What a storage suite shared by the Node run (SQLite, PostgreSQL) and the workerd run (D1)
// needs: a migrated database and a way to open a second handle on it. Runtime-neutral (no Node
// module), so `*.case.ts` files import only this, never dialects.ts.
import { it as vitestIt, type TestFunction } from 'vitest';
import { writeTogether, type Db, type SluiceDatabase } from '../database.js';

export interface SuiteDatabase {
  readonly database: SluiceDatabase;
  /** A second, independent handle on the same database (another process, another invocation). */
  open(): SluiceDatabase;
}

/** Cases that cannot apply to a database, by test name, each with the reason (printed). */
export type NotApplicable = Readonly<Record<string, string>>;

/**
 * `it` for a shared suite: a case listed in `notApplicable` is registered as skipped with its
 * reason in the name and printed, never dropped silently. Unknown names in the list throw, so a
 * renamed case cannot leave a stale excuse behind.
 */
export function suiteIt(label: string, notApplicable: NotApplicable = {}) {
  const seen = new Set<string>();
  const reasons = new Map(Object.entries(notApplicable));
  const it = (name: string, fn: TestFunction, timeout?: number) => {
    seen.add(name);
    const reason = reasons.get(name);
    if (reason === undefined) return vitestIt(name, fn, timeout);
    console.log(`[${label}] not applicable: "${name}": ${reason}`);
    return vitestIt.skip(`${name} — not applicable on ${label}: ${reason}`, fn);
  };
  const done = () => {
    for (const name of reasons.keys())
      if (!seen.has(name)) throw new Error(`[${label}] no case named "${name}" to skip`);
  };
  return { it, done };
}

/**
 * A repository write as callers make it: inside one transaction where there is one; on D1 the
 * call itself, which the repositories make ONE statement or ONE batch there (`atomicBatch`).
 * A `fn` that makes several calls is atomic only where transactions exist: on D1 it runs call
 * by call, which is fine for seeding fixtures (nothing else writes meanwhile), never for code
 * under test.
 */
export function repoWrite<T>(database: SluiceDatabase, fn: (tx: Db) => Promise<T>): Promise<T> {
  return writeTogether(database, fn);
}
