// The subset of Cloudflare's D1 binding that the storage uses (as kysely declares the subset of
// better-sqlite3 it needs): structural, so the package type-checks without the Workers globals
// and a test can hand in the real binding from workerd.

export interface D1ResultLike<T = Record<string, unknown>> {
  results: T[];
  success: boolean;
  meta: { changes?: number; last_row_id?: number } & Record<string, unknown>;
}

export interface D1StatementLike {
  bind(...values: unknown[]): D1StatementLike;
  all<T = Record<string, unknown>>(): Promise<D1ResultLike<T>>;
  run<T = Record<string, unknown>>(): Promise<D1ResultLike<T>>;
}

export interface D1Like {
  prepare(query: string): D1StatementLike;
  /** Runs the statements in order as ONE transaction: all of them land, or none (verified). */
  batch<T = Record<string, unknown>>(statements: D1StatementLike[]): Promise<D1ResultLike<T>[]>;
}

/** Rows of a statement run on its own. */
export async function d1All<T>(d1: D1Like, query: string, ...values: unknown[]): Promise<T[]> {
  return (
    await d1
      .prepare(query)
      .bind(...values)
      .all<T>()
  ).results;
}
