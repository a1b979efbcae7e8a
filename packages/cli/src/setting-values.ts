// The settings whose values have a shape to check (URLs, levels, secrets), read through the
// setting reader so a wrong value names the flag, variable or config field it came from.

import { SluiceError, parseLogLevel, type LogLevel } from '@sluice/contracts';
// The light subpath: every command reads DATABASE_URL, few open the database (kysely, drivers).
import { DATABASE_URL_FORMS, parseDatabaseUrl } from '@sluice/storage/database-url';
import type { SettingReader } from './setting-reader.js';

/** At least 32 bytes, so a short secret fails at start rather than at the first signed link. */
export function signingSecret(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (Buffer.byteLength(value) < 32)
    throw new SluiceError('INVALID_CONFIG', 'SLUICE_SIGNING_SECRET must be at least 32 bytes');
  return value;
}

export const DEFAULT_DATABASE = '.sluice/sluice.db';

/** The database URL as given (undefined: the default), refused unless storage can open it. */
export function databaseOf(
  read: SettingReader,
  fromConfig: string | undefined,
): string | undefined {
  const s = { env: 'DATABASE_URL', field: 'database' };
  const { value, from } = read.text(s, fromConfig);
  if (value !== undefined && !parseDatabaseUrl(value))
    read.fail(s, from, `must be ${DATABASE_URL_FORMS}, got "${value}"`);
  return value;
}

export function connectWaitOf(read: SettingReader, fromConfig: number | undefined) {
  const s = { env: 'SLUICE_CONNECT_WAIT_MS', field: 'connectWaitMs', flag: '--connect-wait-ms' };
  const { value, name } = read.int(s, fromConfig, { min: 0, max: 3_600_000 });
  return { ms: value ?? 30_000, name };
}

export function logLevelOf(raw: string | undefined): LogLevel {
  try {
    return parseLogLevel(raw);
  } catch (error) {
    throw new SluiceError('INVALID_CONFIG', (error as Error).message);
  }
}
