import { PostgresAdapter } from 'kysely';

/** Which dialect a kysely handle (or transaction) talks to. */
export function isPostgres(db: { getExecutor(): { readonly adapter: unknown } }): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
