import { migrate, openDatabase } from '@sluice/storage';
import type { Settings } from '../define-config.js';

export async function runMigrate(settings: Settings, out: (line: string) => void): Promise<void> {
  const database = openDatabase({ url: settings.database });
  try {
    const applied = await migrate(database);
    out(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await database.close();
  }
}
