// kind → version → handler. A worker serves exactly the (kind, version) pairs registered here:
// it claims only those, heartbeats only those, and dead-letters any other version it is handed
// (never runs it with a neighbouring version's handler).

import { isVersion, SluiceError, type JobRegistry, type VersionKey } from '@sluice/contracts';
import type { Handler } from './define-handler.js';

export type HandlerRegistry<R extends JobRegistry = JobRegistry> = {
  readonly [K in keyof R]?: Readonly<Record<string, Handler<R[K]>>>;
};

export interface ResolvedHandlers {
  /** Every served (kind, version) pair, sorted. */
  readonly versions: readonly VersionKey[];
  get(kind: string, version: string): Handler | undefined;
  /** Versions of `kind` this worker serves (for `routeByPrefix`). */
  versionsOf(kind: string): readonly string[];
}

export function resolveHandlers(jobs: JobRegistry, handlers: HandlerRegistry): ResolvedHandlers {
  const byKind = new Map<string, Map<string, Handler>>();
  for (const [kind, versions] of Object.entries(handlers)) {
    if (!versions) continue;
    const definition = jobs[kind];
    if (!definition) {
      throw new SluiceError(
        'INVALID_CONFIG',
        `handlers name kind "${kind}", which jobs does not define`,
      );
    }
    const map = new Map<string, Handler>();
    for (const [version, handler] of Object.entries(versions)) {
      if (!isVersion(version)) {
        throw new SluiceError(
          'INVALID_CONFIG',
          `handlers["${kind}"]: "${version}" is not a version like v1`,
        );
      }
      if (!handler || handler.job.kind !== kind) {
        throw new SluiceError(
          'INVALID_CONFIG',
          `handlers["${kind}"]["${version}"] was defined for "${handler?.job.kind ?? 'nothing'}"`,
        );
      }
      map.set(version, handler);
    }
    if (map.size > 0) byKind.set(kind, map);
  }
  const versions = [...byKind.entries()]
    .flatMap(([kind, m]) => [...m.keys()].map((version) => ({ kind, version })))
    .sort((a, b) => (a.kind + a.version).localeCompare(b.kind + b.version));
  if (versions.length === 0) throw new SluiceError('INVALID_CONFIG', 'no handlers registered');
  return {
    versions,
    get: (kind, version) => byKind.get(kind)?.get(version),
    versionsOf: (kind) => [...(byKind.get(kind)?.keys() ?? [])],
  };
}
