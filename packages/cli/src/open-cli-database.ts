// How every command opens the job database: the URL was checked by the settings; the SQLite
// file's folder is created only for the default `.sluice/`; PostgreSQL connections are bounded by
// a connect timeout and the command waits for the server within the connect window.

import { describeDatabaseUrl, openDatabase, type SluiceDatabase } from '@sluice/storage';
import type { Settings } from './define-config.js';
import { waitForService } from './wait-for-service.js';

/** One connection attempt may take this long at most (the window may be shorter). */
const MAX_ATTEMPT_MS = 10_000;

export async function openCliDatabase(
  settings: Settings,
  out: (line: string) => void,
  options: { notifyEvents?: boolean } = {},
): Promise<SluiceDatabase> {
  const database = openDatabase({
    url: settings.database,
    createFolder: settings.createDatabaseFolder,
    connectTimeoutMs: Math.min(MAX_ATTEMPT_MS, Math.max(1000, settings.connectWait.ms)),
    ...options,
  });
  try {
    await waitForService(
      {
        label: describeDatabaseUrl(settings.database),
        // `select 1`, built through the handle (no kysely import here).
        attempt: async () => {
          await database.db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
        },
      },
      settings.connectWait,
      out,
    );
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
  return database;
}
