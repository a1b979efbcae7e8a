// The job database of a Sluice run: a fresh SQLite file per run, or the suite's PostgreSQL
// database migrated once and emptied (TRUNCATE) before every run, so no run inherits another's
// rows or bloat.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase, type SluiceDatabase } from '@sluice/storage';
import { sql } from 'kysely';

/** Every table the migrations create, emptied between PostgreSQL runs. */
const TABLES = [
  'jobs',
  'job_events',
  'files',
  'api_keys',
  'queue',
  'outbox',
  'locks',
  'served_versions',
  'units',
  'provider_calls',
  'asset_owners',
  'assets',
];

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
    await sql.raw(`TRUNCATE ${TABLES.join(', ')} RESTART IDENTITY`).execute(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  const close = once(() => database.close());
  return { url: pgUrl, database, close, dispose: close };
}

/** Fresh planner statistics after a prefill (a steady-state system has them). */
export async function analyze(database: SluiceDatabase): Promise<void> {
  for (const table of ['jobs', 'job_events', 'queue'])
    await sql.raw(`ANALYZE ${table}`).execute(database.db);
}
