// Optional peer dependencies (better-sqlite3, pg, iovalkey) load only when the chosen dialect or
// runtime needs them, so an app installs just its own: a SQLite app never needs pg, an embedded
// one never needs iovalkey. Loaded synchronously with the caller's `require`, because the
// constructors that need them (openDatabase, a Redis connection) are synchronous, and so that the
// package is resolved from the package that declares the peer (pnpm links peers there).

import { MissingDependencyError } from '@sluice/contracts';

/** `require` built by the caller: `createRequire(import.meta.url)`. */
export type RequireFn = (id: string) => unknown;

function isNotFound(error: unknown, name: string): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  // Only the package itself missing: a missing file inside an installed package is a real error.
  return (
    typeof e === 'object' &&
    e !== null &&
    (e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_MODULE_NOT_FOUND') &&
    typeof e.message === 'string' &&
    e.message.includes(`'${name}'`)
  );
}

/** Loads `name`, or throws MissingDependencyError naming it and what needed it. */
export function requireOptional<T>(require: RequireFn, name: string, neededFor: string): T {
  try {
    return require(name) as T;
  } catch (error) {
    if (isNotFound(error, name))
      throw new MissingDependencyError(name, neededFor, { cause: error });
    throw error;
  }
}
