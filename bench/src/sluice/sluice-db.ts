// The job database of a Sluice run: a fresh SQLite file per run, or the suite's PostgreSQL
// database migrated once and, before every run, emptied (TRUNCATE) and vacuumed + analyzed, so no
// run inherits another's rows, bloat or statistics. After the prefill every table is analyzed
// again. graphile-worker's tables get exactly the same treatment (anchors/graphile.ts), so
// neither side plans its first statements on stale statistics (README, "Method").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase, type SluiceDatabase } from '@sluice/storage';
import { sql } from 'kysely';

/**
 * Every table the migrations created, read from the catalog rather than listed here: the schema
 * changes (the `queue` table is gone since migration 0005), and the same harness must also run
 * against older commits for before/after figures (README, "Per-job cost of another commit").
 * kysely's own migration tables are kept.
 */
async function sluiceTables(database: SluiceDatabase): Promise<string[]> {
  const result = await sql<{ name: string }>`
    select tablename as name from pg_tables
    where schemaname = current_schema() and tablename not like 'kysely_%'
    order by tablename`.execute(database.db);
  return result.rows.map((r) => r.name);
}

export type Storage = 'sqlite' | 'postgres';

export interface RunDatabase {
  /** What children pass to `openDatabase({ url })`. */
  url: string;
  /** The parent's handle (one per process on SQLite: see `openDatabase`). */
  database: SluiceDatabase;
  /** Closes the parent's handle (idempotent). */
  close(): Promise<void>;
  /** Closes the parent's handle and removes the SQLite directory. */
  dispose(): Promise<void>;
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}

const migrated = new Set<string>();

/**
 * A fresh, migrated database for one run: a new SQLite file in a temporary directory, or the
 * suite's PostgreSQL database with every Sluice table truncated.
 */
export async function prepareRunDatabase(
  storage: Storage,
  pgUrl: string | undefined,
): Promise<RunDatabase> {
  if (storage === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-'));
    const url = join(dir, 'sluice.db');
    const database = openDatabase({ url });
    const close = once(() => database.close());
    try {
      await migrate(database);
    } catch (error) {
      await close();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    return {
      url,
      database,
      close,
      async dispose() {
        await close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!pgUrl) throw new Error('a PostgreSQL run needs the suite database');
  const database = openDatabase({ url: pgUrl, poolSize: 2 });
  try {
    if (!migrated.has(pgUrl)) {
      await migrate(database);
      migrated.add(pgUrl);
    }
    const tables = await sluiceTables(database);
    await sql.raw(`TRUNCATE ${tables.join(', ')} RESTART IDENTITY`).execute(database.db);
    // VACUUM cannot run inside a transaction: kysely sends it on its own (autocommit).
    await sql.raw(`VACUUM ANALYZE ${tables.join(', ')}`).execute(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  const close = once(() => database.close());
  return { url: pgUrl, database, close, dispose: close };
}

/**
 * Fresh planner statistics after a prefill (a steady-state system has them): every table, as
 * graphile-worker's after its prefill (SQLite: a plain `ANALYZE` of the fresh file).
 */
export async function analyze(database: SluiceDatabase): Promise<void> {
  // Only PostgreSQL has a pool, and a catalogue to list its tables from.
  if (!database.pgPool) {
    await sql.raw('ANALYZE').execute(database.db);
    return;
  }
  const tables = await sluiceTables(database);
  await sql.raw(`ANALYZE ${tables.join(', ')}`).execute(database.db);
}
