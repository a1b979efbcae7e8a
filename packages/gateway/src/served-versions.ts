// Is there a live worker for this version? The runtime's registry is read through a short cache
// so the accept path adds no query per submit; a cached answer that would dead-letter a job is
// confirmed with a fresh read first, so a worker that just started is never missed.

import { routeByPrefix, type RouteResult, type RuntimeDispatcher } from '@sluice/contracts';

export type ServedVersionCheck = (
  kind: string,
  version: string,
  jobId: string,
) => Promise<RouteResult>;

export function createServedVersionCheck(
  runtime: Pick<RuntimeDispatcher, 'servedVersions'>,
  ttlMs = 1000,
): ServedVersionCheck {
  const cache = new Map<string, { versions: readonly string[] | undefined; until: number }>();

  async function read(kind: string): Promise<readonly string[] | undefined> {
    const versions = await runtime.servedVersions?.(kind);
    if (ttlMs > 0) cache.set(kind, { versions, until: Date.now() + ttlMs });
    return versions;
  }

  // An unknown (undefined) or empty registry dead-letters nothing: the worker decides later.
  const routable = (versions: readonly string[] | undefined, version: string) =>
    !versions || versions.length === 0 || versions.includes(version);

  return async (kind, version, jobId) => {
    if (!runtime.servedVersions) return { ok: true, version };
    const hit = cache.get(kind);
    const fresh = !hit || hit.until <= Date.now();
    let versions = fresh ? await read(kind) : hit.versions;
    if (routable(versions, version)) return { ok: true, version };
    if (!fresh) versions = await read(kind);
    if (routable(versions, version)) return { ok: true, version };
    return routeByPrefix(jobId, versions ?? []);
  };
}
