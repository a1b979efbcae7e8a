// `SluiceDatabase.close()` ends the PostgreSQL pool through kysely's `destroy()`, which does
// nothing when kysely never ran a query on that handle (its driver initialises lazily). The
// worker's write path sends its statements through the pool directly (named, prepared), so a
// worker child's handle could close with its pool still open: 10 idle connections left until pg's
// 10 s idle timeout, and the per-job cost probe waiting for them (harness/pg-cost.ts). The pool is
// ended here as well when it still runs.
import type { SluiceDatabase } from '@sluice/storage';

export async function closeDatabase(database: SluiceDatabase): Promise<void> {
  await database.close();
  const pool = database.pgPool;
  if (pool && !pool.ending) await pool.end();
}
