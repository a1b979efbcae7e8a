// The embedded runtime, ready to hand to `createWorker`: the consumer under `runtimes/` wired to
// the lease queue in the job database.

import { hostname } from 'node:os';
import type { RuntimeConsumer, VersionKey } from '@sluice/contracts';
import type { SluiceDatabase } from '@sluice/storage';
import { createEmbeddedQueueStore } from './embedded-queue-store.js';
import { createEmbeddedConsumer } from '../runtimes/embedded.js';
import type { EmbeddedDelivery, EmbeddedQueueStore } from '../runtimes/types.js';

export const DEFAULT_LEASE_MS = 30_000;

export interface EmbeddedRuntimeOptions {
  database: SluiceDatabase;
  /** The (kind, version) pairs to claim: the worker's registered handlers. */
  versions: readonly VersionKey[];
  /** Lease owner, stable per worker (default hostname-pid). */
  workerId?: string | undefined;
  /** Lease length (default 30 s; documented default). */
  leaseMs?: number | undefined;
  pollMs?: number | undefined;
  blockMs?: number | undefined;
  heartbeatEveryMs?: number | undefined;
  servedTtlMs?: number | undefined;
  /** A queued job is raised one priority level per this much waiting (default 30 s). */
  agingMs?: number | undefined;
  onError?: ((error: unknown) => void) | undefined;
  /** Wraps the store (tests inject read failures through it). */
  wrapStore?: ((store: EmbeddedQueueStore) => EmbeddedQueueStore) | undefined;
}

let defaultIds = 0;

/**
 * `hostname-pid` for a process's first worker, `hostname-pid-n` for its n-th. Two workers of one
 * process (two runtimes, a test) must never share an id: restart recovery takes a job leased to
 * this id and not running here as its own, so each would re-run the other's running jobs. An id
 * that survives restarts (so a restarted worker takes its work back at once) is set explicitly.
 */
export function defaultWorkerId(): string {
  const n = ++defaultIds;
  return n === 1 ? `${hostname()}-${process.pid}` : `${hostname()}-${process.pid}-${n}`;
}

export function createEmbeddedRuntime(
  opts: EmbeddedRuntimeOptions,
): RuntimeConsumer<EmbeddedDelivery> {
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const store = createEmbeddedQueueStore({
    database: opts.database,
    workerId: opts.workerId ?? defaultWorkerId(),
    versions: opts.versions,
    leaseMs,
    servedTtlMs: opts.servedTtlMs,
    ...(opts.agingMs !== undefined ? { agingMs: opts.agingMs } : {}),
  });
  return createEmbeddedConsumer({
    store: opts.wrapStore ? opts.wrapStore(store) : store,
    pollMs: opts.pollMs,
    blockMs: opts.blockMs,
    heartbeatEveryMs: opts.heartbeatEveryMs ?? Math.max(50, Math.floor(leaseMs / 3)),
    onError: opts.onError,
  });
}
