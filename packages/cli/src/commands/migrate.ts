import { migrate } from '@sluice/storage';
import type { Settings } from '../define-config.js';
import { openCliDatabase } from '../open-cli-database.js';

export async function runMigrate(settings: Settings, out: (line: string) => void): Promise<void> {
  const database = await openCliDatabase(settings, out);
  try {
    const applied = await migrate(database);
    out(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await database.close();
  }
}
