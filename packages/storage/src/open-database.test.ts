// A database URL is read by its scheme before anything is opened: `mysql://…` read as a path
// became a SQLite file named `mysql:` (and was migrated); a mistyped path created its folders.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeDatabaseUrl, openDatabase, parseDatabaseUrl } from './open-database.js';

describe('database URLs are read by scheme', () => {
  it.each([
    ['postgres://u@db:5432/x', { kind: 'postgres', url: 'postgres://u@db:5432/x' }],
    ['postgresql://db/x', { kind: 'postgres', url: 'postgresql://db/x' }],
    ['sqlite:data/x.db', { kind: 'sqlite', file: 'data/x.db' }],
    ['sqlite:///abs/x.db', { kind: 'sqlite', file: '/abs/x.db' }],
    ['file:///abs/x%20y.db', { kind: 'sqlite', file: '/abs/x y.db' }],
    ['.sluice/sluice.db', { kind: 'sqlite', file: '.sluice/sluice.db' }],
    [':memory:', { kind: 'sqlite', file: ':memory:' }],
    ['C:\\data\\x.db', { kind: 'sqlite', file: 'C:\\data\\x.db' }],
  ])('%s', (url, expected) => expect(parseDatabaseUrl(url)).toEqual(expected));

  it.each(['mysql://x@y/z', 'redis://h', 'http://h/x', 'sqlite:', ''])(
    '%s is refused, and openDatabase creates nothing',
    (url) => {
      expect(parseDatabaseUrl(url)).toBeUndefined();
      expect(() => openDatabase({ url })).toThrowError(
        /must be postgres:\/\/…, sqlite:… or a file path/,
      );
    },
  );

  it('names the server, never the password', () => {
    expect(describeDatabaseUrl('postgres://u:secret@db:6543/x')).toBe('PostgreSQL at db:6543');
    expect(describeDatabaseUrl('x.db')).toBe('SQLite database x.db');
  });

  it('createFolder: false refuses a file whose folder is missing, and creates nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-open-'));
    const file = join(dir, 'no', 'such', 'x.db');
    expect(() => openDatabase({ url: file, createFolder: false })).toThrowError(
      /its folder .*no\/such does not exist/,
    );
    expect(existsSync(join(dir, 'no'))).toBe(false);
  });
});
