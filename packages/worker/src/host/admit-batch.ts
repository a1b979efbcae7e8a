// One read batch → ONE query for the job rows, one for their files, ONE transaction for every
// transition the batch needs (start, reclaim, dead_letter, stale: each a compare-and-set fenced
// by the epoch we saw), then the transport calls, grouped. Deliveries that may run come back with
// the row as the start transition left it, so the attempt never loads its job again.

import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import {
  getJobsByIds,
  getUnitsOfJobs,
  missingFiles,
  transitionJobs,
  type JobRow,
  type SluiceDatabase,
  type TransitionRequest,
  type UnitCheckpoint,
} from '@sluice/storage';
import {
  decideDelivery,
  NOT_DISPATCHED_DELAY_MS,
  type DeliveryDecision,
} from './decide-delivery.js';
import type { ResolvedHandlers } from '../attempt/handler-registry.js';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';
import type { PublishEvents } from './publish-events.js';
import { releaseAfterDelay } from './release-later.js';

export interface AdmitDeps<D extends Delivery> {
  database: SluiceDatabase;
  consumer: RuntimeConsumer<D>;
  handlers: ResolvedHandlers;
  counters: WorkerCounters;
  logger: WorkerLogger;
  /** How long a started attempt holds its job in the database (renewed by the renewal tick). */
  leaseMs: number;
  /** Committed events, for runtimes that carry them to other processes. */
  publish?: PublishEvents | undefined;
  /** A delivery for a job this worker is still running: its old attempt is fenced out first. */
  fenceLocal(jobId: string): void;
  isLocal(jobId: string): boolean;
}

export interface Admitted<D extends Delivery> {
  delivery: D;
  job: JobRow;
  /** A retried job's checkpoints, loaded for the whole batch in one query (units-table runtimes). */
  checkpoints?: Promise<ReadonlyMap<string, UnitCheckpoint>> | undefined;
}

type Planned<D> = { delivery: D; decision: DeliveryDecision; row: JobRow | undefined };

function requestFor(
  id: string,
  decision: DeliveryDecision,
  leaseMs: number,
): TransitionRequest | undefined {
  switch (decision.action) {
    case 'start':
    case 'reclaim':
      return { id, event: decision.action, epoch: decision.epoch, leaseMs };
    case 'dead_letter':
      return { id, event: 'dead_letter', reason: decision.reason, detail: decision.detail };
    case 'stale':
      return {
        id,
        event: 'stale',
        reason: decision.reason,
        error: { kind: 'sluice', code: 'JOB_STALE', message: decision.detail },
      };
    case 'ack':
    case 'release':
      return undefined;
  }
}

export async function admitBatch<D extends Delivery>(
  deps: AdmitDeps<D>,
  deliveries: readonly D[],
): Promise<Admitted<D>[]> {
  const { database, consumer, counters } = deps;
  const ids = [...new Set(deliveries.flatMap((d) => (d.pointer ? [d.pointer.jobId] : [])))];
  const rows = await getJobsByIds(database.db, ids);
  const fileIds = [...rows.values()]
    .filter((r) => r.state === 'queued' || r.state === 'running')
    .flatMap((r) => r.fileIds);
  const missing = new Set(
    fileIds.length > 0 ? await missingFiles(database.db, [...new Set(fileIds)]) : [],
  );

  const now = Date.now();
  const seen = new Set<string>();
  const planned: Planned<D>[] = deliveries.map((delivery) => {
    const jobId = delivery.pointer?.jobId;
    const row = jobId ? rows.get(jobId) : undefined;
    const duplicate = jobId !== undefined && seen.has(jobId);
    if (jobId) seen.add(jobId);
    const decision = decideDelivery({
      pointer: delivery.pointer,
      row,
      // The row is the truth: route by its kind, never by what the transport carried.
      servedVersions: row ? deps.handlers.versionsOf(row.kind) : [],
      missingFiles: row ? row.fileIds.filter((f) => missing.has(f)) : [],
      duplicate,
      now,
    });
    return { delivery, decision, row };
  });

  for (const p of planned) {
    if (p.decision.action === 'reclaim' && p.row && deps.isLocal(p.row.id))
      deps.fenceLocal(p.row.id);
  }

  // Every CAS is fenced by the epoch seen in the batch load: if anything moved the job since,
  // the transition does not apply and the delivery is re-examined below.
  const requests: { delivery: D; req: TransitionRequest }[] = [];
  for (const p of planned) {
    if (!p.row) continue;
    const req = requestFor(p.row.id, p.decision, deps.leaseMs);
    if (req)
      requests.push({ delivery: p.delivery, req: { ...req, epoch: req.epoch ?? p.row.epoch } });
  }
  const written = new Map<D, { ok: boolean; job: JobRow | undefined }>();
  if (requests.length > 0) {
    // One statement per kind of transition for the whole batch (storage's bulk path).
    const results = await database.transaction((tx) =>
      transitionJobs(
        tx,
        requests.map((r) => r.req),
        now,
      ),
    );
    deps.publish?.(results.flatMap((r) => (r.ok ? [r.event] : [])));
    const moved = results.some((r) => !r.ok)
      ? await getJobsByIds(
          database.db,
          requests.filter((_, i) => !results[i]?.ok).map((r) => r.req.id),
        )
      : new Map<string, JobRow>();
    requests.forEach((r, i) => {
      const res = results[i];
      written.set(
        r.delivery,
        res?.ok ? { ok: true, job: res.job } : { ok: false, job: moved.get(r.req.id) },
      );
    });
  }

  const acks: D[] = [];
  const releases = new Map<number, D[]>();
  const deadLetters: { delivery: D; reason: string }[] = [];
  const admitted: Admitted<D>[] = [];
  const releaseLater = (d: D, ms: number) => releases.set(ms, [...(releases.get(ms) ?? []), d]);

  for (const p of planned) {
    const w = written.get(p.delivery);
    const { decision } = p;
    if (w && !w.ok) {
      // Moved under us. A finished job needs nothing more; anything else is looked at again later.
      const state = w.job?.state;
      if (!w.job || (state !== 'queued' && state !== 'running' && state !== 'accepted')) {
        counters.skipped++;
        acks.push(p.delivery);
      } else {
        deps.logger.warn('job moved while its batch was admitted; released', {
          jobId: p.row?.id,
          state,
        });
        releaseLater(p.delivery, NOT_DISPATCHED_DELAY_MS);
      }
      continue;
    }
    switch (decision.action) {
      case 'ack':
        counters.skipped++;
        acks.push(p.delivery);
        break;
      case 'release':
        releaseLater(p.delivery, decision.delayMs);
        break;
      case 'dead_letter':
        counters.deadLettered++;
        deadLetters.push({ delivery: p.delivery, reason: decision.reason });
        break;
      case 'stale':
        counters.stale++;
        acks.push(p.delivery);
        break;
      case 'start':
      case 'reclaim':
        counters.started++;
        if (decision.action === 'reclaim') counters.reclaimed++;
        admitted.push({ delivery: p.delivery, job: w?.job as JobRow });
        break;
    }
  }

  preloadCheckpoints(deps, admitted);
  const calls: Promise<unknown>[] = [];
  if (acks.length > 0) calls.push(consumer.ack(acks));
  for (const [ms, ds] of releases) calls.push(releaseAfterDelay(deps, ds, ms));
  for (const { delivery, reason } of deadLetters) calls.push(consumer.deadLetter(delivery, reason));
  const settled = await Promise.allSettled(calls);
  for (const s of settled) {
    // The outcomes are stored: a failed transport call means a redelivery, which is a no-op.
    if (s.status === 'rejected')
      deps.logger.error('transport call after admission failed', { error: s.reason });
  }
  return admitted;
}

/** First attempts (epoch 1) have no checkpoints to read (unit-checkpoints.ts); the rest share ONE query. */
function preloadCheckpoints<D extends Delivery>(deps: AdmitDeps<D>, admitted: Admitted<D>[]): void {
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
    a.checkpoints = mine;
  }
}
