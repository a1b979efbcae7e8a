// The accept path: the only work `jobs.submit` does inside the request. Checks (files, version
// routing, idempotency) run before the transaction, so a rejected request writes nothing; then
// ONE transaction writes the job with its first event, attaches its files and either queues it
// (in-transaction runtimes; for the others with an outbox row whose pointer is dispatched right
// after commit) or dead-letters it (a version no live worker serves).

import { createHash } from 'node:crypto';
import {
  assertRolloutPercent,
  chooseVersion,
  formatJobId,
  randomToken,
  SluiceError,
  type JobRegistry,
  type JobState,
  type MessagePointer,
  type RolloutConfig,
  type SubmitResult,
} from '@sluice/contracts';
import {
  attachFiles,
  findByIdempotencyKey,
  getFiles,
  insertJob,
  transitionJob,
  type JobRow,
  type SluiceDatabase,
  type StoredEvent,
} from '@sluice/storage';
import type { DispatchPath } from './dispatch.js';
import type { EventHub } from './events/event-hub.js';
import type { GatewayMetrics } from './metrics.js';
import type { ServedVersionCheck } from './served-versions.js';

export interface SubmitRequest {
  kind: string;
  input: unknown;
  idempotencyKey?: string | undefined;
  fileIds?: readonly string[] | undefined;
}

export interface AcceptDeps {
  jobs: JobRegistry;
  database: SluiceDatabase;
  dispatch: DispatchPath;
  served: ServedVersionCheck;
  hub: EventHub;
  metrics: GatewayMetrics;
  /** Per-kind override of `versions.rolloutPercent`. */
  rollout?: Readonly<Record<string, number>> | undefined;
}

export type Acceptor = (tenantId: string, request: SubmitRequest) => Promise<SubmitResult>;

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

export function inputHash(input: unknown, fileIds: readonly string[]): string {
  return createHash('sha256')
    .update(canonicalJson({ input: input ?? null, fileIds }))
    .digest('hex');
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export function createAcceptor(deps: AcceptDeps): Acceptor {
  const { database, dispatch, hub, metrics } = deps;
  // Built once: the rollout of every kind, with its override.
  const rollouts = new Map<string, RolloutConfig>();
  for (const def of Object.values(deps.jobs)) {
    const override = deps.rollout?.[def.kind];
    const rolloutPercent = assertRolloutPercent(override ?? def.versions.rolloutPercent ?? 0);
    rollouts.set(def.kind, { ...def.versions, rolloutPercent });
  }

  function duplicateOf(existing: JobRow, kind: string, hash: string): SubmitResult {
    if (existing.kind !== kind || existing.inputHash !== hash) {
      throw new SluiceError('CONFLICT', 'idempotency key already used with a different input');
    }
    metrics.duplicates++;
    return { id: existing.id, state: existing.state, isDuplicate: true };
  }

  return async (tenantId, request) => {
    const def = deps.jobs[request.kind];
    const rollout = rollouts.get(request.kind);
    if (!def || !rollout) throw new SluiceError('BAD_REQUEST', 'unknown job kind');
    const key = request.idempotencyKey;
    const fileIds = [...new Set(request.fileIds ?? [])];
    const hash = inputHash(request.input, fileIds);

    if (fileIds.length > 0) {
      const found = await getFiles(database.db, tenantId, fileIds);
      // Another tenant's file answers exactly like a missing one.
      if (found.length !== fileIds.length) throw new SluiceError('NOT_FOUND', 'file not found');
    }
    if (key !== undefined) {
      const existing = await findByIdempotencyKey(database.db, tenantId, key);
      if (existing) return duplicateOf(existing, request.kind, hash);
    }
    const version =
      rollout.next === undefined || !rollout.rolloutPercent
        ? rollout.current
        : chooseVersion(`${tenantId}\u0000${request.kind}\u0000${key ?? randomToken()}`, rollout);
    const id = formatJobId(version);
    const route = await deps.served(request.kind, version, id);
    const pointer: MessagePointer = { jobId: id, kind: request.kind, version, tenantId };

    let outcome: { state: JobState; events: StoredEvent[] };
    try {
      outcome = await database.transaction(async (tx) => {
        const { event } = await insertJob(tx, {
          id,
          tenantId,
          kind: request.kind,
          version,
          input: request.input,
          inputHash: hash,
          idempotencyKey: key ?? null,
          fileIds,
          maxAttempts: def.maxAttempts,
        });
        await attachFiles(tx, fileIds);
        if (!route.ok) {
          // Never routed to another version: parked with its reason for a person to see.
          const r = await transitionJob(tx, {
            id,
            event: 'dead_letter',
            reason: route.reason,
            detail: route.detail,
          });
          return { state: 'dead_lettered', events: r.ok ? [event, r.event] : [event] };
        }
        await dispatch.stage(tx, [pointer]);
        // Queued at commit for every runtime: an outside runtime's outbox row guarantees the
        // pointer reaches it, and a worker that read the pointer before a second commit would
        // find the job still `accepted` and put it back for a second.
        const r = await transitionJob(tx, { id, event: 'dispatch' });
        return { state: 'queued', events: r.ok ? [event, r.event] : [event] };
      });
    } catch (error) {
      // Two submits with one key raced: the other one's job is the answer.
      if (key !== undefined && isUniqueViolation(error)) {
        const existing = await findByIdempotencyKey(database.db, tenantId, key);
        if (existing) return duplicateOf(existing, request.kind, hash);
      }
      throw error;
    }
    hub.publish(outcome.events);
    metrics.submits++;
    if (!route.ok) metrics.unroutable++;
    // Awaited for back-pressure; a failure is left to the reconciler (the outbox row stays).
    if (route.ok && !dispatch.inTransaction) {
      await dispatch.afterCommit([pointer], { markQueued: false });
    }
    return { id, state: outcome.state, isDuplicate: false };
  };
}
