// The events tailer of a runtime that does not carry events itself: the job database's own
// event rows. A database that NOTIFYs new events is tailed by listening; any other by polling
// its rows.

import type { SluiceDatabase } from '@sluice/storage';
import type { EventTailer } from './event-hub.js';
import { createPgTailer } from './pg-tailer.js';
import { createSqliteTailer } from './sqlite-tailer.js';

export function createDatabaseTailer(
  database: SluiceDatabase,
  pollMs: number | undefined,
  onError: (e: unknown) => void,
): EventTailer {
  if (database.capabilities.listenNotify && database.pgPool) {
    return createPgTailer(database.pgPool, database.db, { onError });
  }
  return createSqliteTailer(database.db, {
    intervalMs: pollMs,
    file: database.sqliteFile,
    onError,
  });
}
