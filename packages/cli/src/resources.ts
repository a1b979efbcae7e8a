// What every long-running command opens: the job database (migrated) and the blob store.
// On SQLite one process holds exactly one database handle (storage's `openDatabase` note), so
// `sluice dev` shares this one between its gateway and its worker.

import {
  createLocalBlobStore,
  migrate,
  openDatabase,
  type BlobStore,
  type SluiceDatabase,
} from '@sluice/storage';
import type { Settings } from './define-config.js';

export interface Resources {
  database: SluiceDatabase;
  blobs: BlobStore;
  close(): Promise<void>;
}

export async function openResources(settings: Settings): Promise<Resources> {
  // With Valkey Streams the events travel on the events stream: PostgreSQL NOTIFY would only cost.
  const database = openDatabase({
    url: settings.database,
    notifyEvents: settings.runtime !== 'valkey-streams',
  });
  try {
    await migrate(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return {
    database,
    blobs: createLocalBlobStore(settings.blobsDir),
    close: () => database.close(),
  };
}
