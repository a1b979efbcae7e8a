// What a database URL points at, with no driver or query builder loaded: the CLI checks
// DATABASE_URL (and names the database in messages) in commands that never open it.

export const DEFAULT_SQLITE_FILE = '.sluice/sluice.db';

export function isPostgresUrl(url: string | undefined): boolean {
  return url !== undefined && /^postgres(ql)?:\/\//.test(url);
}

/** Where a database URL points: a PostgreSQL server or a SQLite file. */
export type DatabaseLocation = { kind: 'postgres'; url: string } | { kind: 'sqlite'; file: string };

/**
 * `postgres://…` / `postgresql://…`, `sqlite:<path>` (`sqlite:///abs/path` too), `file:///…`, or
 * a plain path (`:memory:` included). Anything else with a scheme (`mysql://…`, `redis://…`) is
 * undefined: read as a file name it would have become a SQLite file called `mysql:`.
 */
export function parseDatabaseUrl(url: string): DatabaseLocation | undefined {
  if (isPostgresUrl(url)) return { kind: 'postgres', url };
  if (url === ':memory:') return { kind: 'sqlite', file: url };
  const sqlite = /^sqlite:(?:\/\/)?(.+)$/.exec(url);
  if (sqlite?.[1]) return { kind: 'sqlite', file: sqlite[1] };
  if (url.startsWith('file://'))
    return { kind: 'sqlite', file: decodeURIComponent(new URL(url).pathname) };
  // A scheme is two or more letters then ':' (one letter is a Windows drive, `C:\…`).
  if (url === '' || /^[a-z][a-z0-9+.-]+:/i.test(url)) return undefined;
  return { kind: 'sqlite', file: url };
}

/** What to call the database in a message: `PostgreSQL at db:5432`, `SQLite database x.db`. */
export function describeDatabaseUrl(url: string): string {
  const where = parseDatabaseUrl(url);
  if (!where) return 'the database';
  if (where.kind === 'sqlite') return `SQLite database ${where.file}`;
  const u = new URL(where.url);
  return `PostgreSQL at ${u.hostname || 'localhost'}:${u.port || 5432}`;
}

export const DATABASE_URL_FORMS = 'postgres://…, sqlite:… or a file path';
