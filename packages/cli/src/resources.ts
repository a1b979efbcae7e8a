// What every long-running command opens: the job database (migrated) and the blob store.
// On SQLite one process holds exactly one database handle (storage's `openDatabase` note), so
// `sluice dev` shares this one between its gateway and its worker.

import { migrate, openBlobStore, type BlobStore, type SluiceDatabase } from '@sluice/storage';
import type { Settings } from './define-config.js';
import { openCliDatabase } from './open-cli-database.js';
import { waitForService } from './wait-for-service.js';

export interface Resources {
  database: SluiceDatabase;
  blobs: BlobStore;
  close(): Promise<void>;
}

/**
 * Blobs: `settings.blobs` (`s3://bucket/prefix`, with SLUICE_S3_* and AWS_* from `env` as
 * storage's open-blob-store.ts lists, or a local folder).
 */
export async function openResources(
  settings: Settings,
  out: (line: string) => void,
  env: Record<string, string | undefined> = process.env,
): Promise<Resources> {
  const runtime = settings.runtime;
  // A runtime that carries events (an events stream of its own) makes PostgreSQL NOTIFY a cost.
  const database = await openCliDatabase(settings, out, {
    notifyEvents: !runtime.capabilities.carriesEvents,
  });
  try {
    // What the runtime needs besides the database (Redis), within the same connect window.
    for (const probe of runtime.services()) await waitForService(probe, settings.connectWait, out);
    await migrate(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  let blobs: BlobStore;
  try {
    blobs = await openBlobStore(settings.blobs, { env });
  } catch (error) {
    await database.close();
    throw error;
  }
  return {
    database,
    blobs,
    async close() {
      await blobs.close?.();
      await database.close();
    },
  };
}
