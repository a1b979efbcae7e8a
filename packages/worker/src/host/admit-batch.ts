// One read batch → the attempts to launch. Admission reads; it does not write the start:
//
// - Deliveries whose claim already started the job (`startsOnClaim`: the embedded queue) come
//   with their job; only the files check remains.
// - Pointers (a transport outside the database) get ONE prepared read of their job rows, a files check when a job has
//   files, and `decideDelivery` each (pure). A first delivery whose pointer carries its row
//   (`startsFromPointer`, pointer-row.ts) skips the read: its fenced first write checks it.
//   A `start` becomes an attempt that has written
//   nothing: its job stays `queued` until the attempt's first write (lazy start). A `reclaim`
//   (a lapsed lease, or this worker's own job from before a restart) is started here, in one
//   group write, because the previous holder may still be writing until the new epoch lands.
//
// Transitions that end a delivery here (dead_letter, stale) are ONE `writeAttempts` call, each
// fenced by the row as read; the transport calls follow, grouped.

import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import {
  getUnitsOfJobs,
  loadSnapshots,
  missingFiles,
  writeAttempts,
  type JobSnapshot,
  type SluiceDatabase,
  type StoredEvent,
  type UnitCheckpoint,
} from '@sluice/storage';
import type { Attempt } from '../attempt/attempt.js';
import type { ResolvedHandlers } from '../attempt/handler-registry.js';
import type { WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';
import type { ClaimedDelivery } from '../runtimes/types.js';
import type { AttemptWriter } from '../writers/attempt-writer.js';
import { finishWriteOf } from '../writers/finish-plan.js';
import { attemptFor, claimedAttempt, claimedEnd, endingWrite } from './admitted-attempts.js';
import { NOT_DISPATCHED_DELAY_MS, type DeliveryDecision } from './decide-delivery.js';
import type { LocalJobs } from './holdings.js';
import { rowFromPointer } from './pointer-row.js';
import { releaseAfterDelay } from './release-later.js';

export interface AdmitDeps<D extends Delivery> {
  database: SluiceDatabase;
  consumer: RuntimeConsumer<D>;
  handlers: ResolvedHandlers;
  counters: WorkerCounters;
  logger: WorkerLogger;
  /** The one writer of attempts: a claimed job's end, a reclaim's start. */
  writer: AttemptWriter;
  /** This worker's id: the lease owner it writes, and how it knows its own jobs. */
  workerId: string;
  /** Committed events, for runtimes that carry them to other processes. */
  publish?: ((events: StoredEvent[]) => void) | undefined;
  /** The jobs this process runs (a reclaim of one fences its old attempt out). */
  local: LocalJobs;
  /** Test seams; `decideDelivery` decides each pointer. */
  hooks: WorkerHooks;
}

type Transport<D> = {
  acks: D[];
  releases: Map<number, D[]>;
  deadLetters: { delivery: D; reason: string }[];
};

/**
 * The attempts to launch, and the batch's transport calls (acks, releases, dead letters) still
 * under way: the caller launches without waiting for them (a slow or blackholed transport must
 * not hold the next batch's hand-off). `transport` never rejects.
 */
export async function admitBatch<D extends Delivery>(
  deps: AdmitDeps<D>,
  deliveries: readonly D[],
): Promise<{ attempts: Attempt<D>[]; transport: Promise<void> }> {
  const { database, consumer, counters } = deps;
  const decide = deps.hooks.decideDelivery;
  if (deps.hooks.beforeAdmit) await deps.hooks.beforeAdmit(deliveries);
  const transport: Transport<D> = { acks: [], releases: new Map(), deadLetters: [] };
  const releaseLater = (d: D, ms: number) =>
    transport.releases.set(ms, [...(transport.releases.get(ms) ?? []), d]);
  const launch: Attempt<D>[] = [];
  const reclaims: Attempt<D>[] = [];
  const endings: { delivery: D; write: ReturnType<typeof endingWrite>; dead?: string }[] = [];

  const claimed = consumer.capabilities.startsOnClaim
    ? (deliveries as readonly (D & ClaimedDelivery)[]).filter((d) => d.claimed !== undefined)
    : [];
  const pointed = deliveries.filter((d) => !claimed.includes(d as D & ClaimedDelivery));
  // First deliveries whose pointer carries the row start from it (pointer-row.ts); the others
  // (and any job that also came through another delivery in this batch) read the row.
  const carried = consumer.capabilities.startsFromPointer ? carriedRows(pointed) : new Map();
  const ids = [
    ...new Set(
      pointed.flatMap((d) => (d.pointer && !carried.has(d.pointer.jobId) ? [d.pointer.jobId] : [])),
    ),
  ];
  const rows = ids.length > 0 ? await loadSnapshots(database, ids) : new Map<string, JobSnapshot>();
  for (const [id, row] of carried) rows.set(id, row);
  counters.admittedFromPointer += carried.size;
  const fileIds = [
    ...[...rows.values()].filter((r) => r.state === 'queued' || r.state === 'running'),
    ...claimed.map((d) => d.claimed.job),
  ].flatMap((r) => r.fileIds);
  const missing = new Set(
    fileIds.length > 0 ? await missingFiles(database.db, [...new Set(fileIds)]) : [],
  );

  for (const d of claimed) {
    const attempt = claimedAttempt(d);
    const outcome = claimedEnd(deps.handlers, attempt, missing);
    if (!outcome) {
      launch.push(attempt);
      continue;
    }
    // Through the writer like any outcome: its `running` event first, fenced at the claim.
    void deps.writer
      .finish(attempt, finishWriteOf(outcome, Date.now(), false))
      .catch((error: unknown) =>
        deps.logger.warn('admission write failed', { error, jobId: attempt.job.id }),
      );
  }

  const now = Date.now();
  const seen = new Set<string>();
  for (const delivery of pointed) {
    const jobId = delivery.pointer?.jobId;
    const row = jobId ? rows.get(jobId) : undefined;
    const duplicate = jobId !== undefined && seen.has(jobId);
    if (jobId) seen.add(jobId);
    const decision: DeliveryDecision = decide({
      pointer: delivery.pointer,
      row,
      // The row is the truth: route by its kind, never by what the transport carried.
      servedVersions: row ? deps.handlers.versionsOf(row.kind) : [],
      missingFiles: row ? row.fileIds.filter((f) => missing.has(f)) : [],
      duplicate,
      heldByDeadSelf:
        row !== undefined &&
        row.state === 'running' &&
        row.leaseOwner === deps.workerId &&
        !deps.local.isLocal(row.id),
      now,
    });
    switch (decision.action) {
      case 'ack':
        counters.skipped++;
        transport.acks.push(delivery);
        break;
      case 'release':
        releaseLater(delivery, decision.delayMs);
        break;
      case 'dead_letter':
        endings.push({
          delivery,
          write: endingWrite(row as JobSnapshot, 'dead_lettered', decision),
          dead: decision.reason,
        });
        break;
      case 'stale':
        endings.push({
          delivery,
          write: endingWrite(row as JobSnapshot, 'stale', {
            reason: decision.reason,
            error: { kind: 'sluice', code: 'JOB_STALE', message: decision.detail },
          }),
        });
        break;
      case 'start':
        launch.push(attemptFor(delivery, row as JobSnapshot, undefined));
        break;
      case 'reclaim': {
        const r = row as JobSnapshot;
        const own = r.leaseOwner === deps.workerId && !deps.local.isLocal(r.id);
        if (deps.local.isLocal(r.id)) deps.local.fenceLocal(r.id);
        reclaims.push(attemptFor(delivery, r, { own }));
        break;
      }
    }
  }

  if (endings.length > 0) {
    const result = await writeAttempts(
      database,
      endings.map((e) => e.write),
      now,
    );
    deps.publish?.(result.events);
    endings.forEach((e, i) => {
      if (!result.applied[i]) return releaseLater(e.delivery, NOT_DISPATCHED_DELAY_MS);
      if (e.dead) {
        counters.deadLettered++;
        transport.deadLetters.push({ delivery: e.delivery, reason: e.dead });
      } else {
        counters.stale++;
        transport.acks.push(e.delivery);
      }
    });
  }

  // Reclaims start before anything runs: the previous holder is fenced from this point on.
  const started = await Promise.all(
    reclaims.map((a) =>
      deps.writer.persist(a).then(
        () => true,
        () => false,
      ),
    ),
  );
  reclaims.forEach((a, i) => {
    if (started[i]) {
      counters.reclaimed++;
      launch.push(a);
    } else {
      deps.logger.warn('job moved while its batch was admitted; released', { jobId: a.job.id });
      releaseLater(a.delivery, NOT_DISPATCHED_DELAY_MS);
    }
  });
  counters.started += launch.length;
  preloadCheckpoints(deps, launch);

  const calls: Promise<unknown>[] = [];
  if (transport.acks.length > 0) calls.push(consumer.ack(transport.acks));
  for (const [ms, ds] of transport.releases) calls.push(releaseAfterDelay(deps, ds, ms));
  for (const { delivery, reason } of transport.deadLetters)
    calls.push(consumer.deadLetter(delivery, reason));
  const settled = Promise.allSettled(calls).then((all) => {
    for (const s of all) {
      // The outcomes are stored: a failed transport call means a redelivery, which is a no-op.
      if (s.status === 'rejected')
        deps.logger.error('transport call after admission failed', { error: s.reason });
    }
  });
  return { attempts: launch, transport: settled };
}

/** The rows the batch's first deliveries carry, by job; a job delivered twice reads its row. */
function carriedRows(deliveries: readonly Delivery[]): Map<string, JobSnapshot> {
  const carried = new Map<string, JobSnapshot>();
  const twice = new Set<string>();
  for (const d of deliveries) {
    const id = d.pointer?.jobId;
    if (id === undefined) continue;
    const row = rowFromPointer(d);
    if (!row || carried.has(id) || twice.has(id)) {
      carried.delete(id);
      twice.add(id);
    } else carried.set(id, row);
  }
  return carried;
}

/** First attempts (epoch 1) have no checkpoints to read; the retried ones share ONE query. */
function preloadCheckpoints<D extends Delivery>(deps: AdmitDeps<D>, admitted: Attempt<D>[]): void {
  if (deps.consumer.capabilities.memoizesSteps) return;
  const retried = admitted.filter((a) => a.job.epoch > 1);
  if (retried.length === 0) return;
  const all = getUnitsOfJobs(
    deps.database.db,
    retried.map((a) => a.job.id),
  );
  // An attempt that never reaches a step never awaits its share: no unhandled rejection.
  all.catch(() => {});
  for (const a of retried) {
    const mine = all.then((m) => m.get(a.job.id) ?? new Map<string, UnitCheckpoint>());
    mine.catch(() => {});
    (a as { checkpoints?: Promise<ReadonlyMap<string, UnitCheckpoint>> }).checkpoints = mine;
  }
}
