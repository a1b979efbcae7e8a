// One accept transaction's writes for a batch of submits that passed their own checks: the
// file-ownership and idempotency reads for the whole batch, one multi-row insert per table (jobs
// directly in their accepted state with both events, attached files, queue or outbox rows).
// Every request keeps its own answer: a missing file (NOT_FOUND) or a key used with another input
// (CONFLICT) rejects that request only and writes nothing for it; two submits of one key in one
// batch give one job (the second is its duplicate).

import {
  SluiceError,
  type MessagePointer,
  type RouteResult,
  type SubmitResult,
} from '@sluice/contracts';
import {
  acceptedSnapshot,
  attachFiles,
  findByIdempotencyKey,
  findByIdempotencyKeys,
  idempotencyRefKey,
  insertAcceptedJobs,
  ownedFileRefs,
  type AcceptedJob,
  type Db,
  type StoredEvent,
} from '@sluice/storage/portable';
import type { DispatchPath } from '../dispatch/dispatch.js';
import { stageAccepted, type InsertJobs } from './stage.js';

export interface AcceptItem {
  job: AcceptedJob & { idempotencyKey: string | null; fileIds: readonly string[] };
  route: RouteResult;
}

/** The stored job a duplicate is compared with. */
export interface Original {
  id: string;
  kind: string;
  inputHash: string;
  state: SubmitResult['state'];
}

export type AcceptAnswer =
  | { ok: true; result: SubmitResult; events: StoredEvent[]; pointer?: MessagePointer }
  | { ok: false; error: unknown };

export function duplicateOf(original: Original, job: AcceptItem['job']): AcceptAnswer {
  if (original.kind !== job.kind || original.inputHash !== job.inputHash) {
    const error = new SluiceError(
      'CONFLICT',
      'idempotency key already used with a different input',
    );
    return { ok: false, error };
  }
  return {
    ok: true,
    result: { id: original.id, state: original.state, isDuplicate: true },
    events: [],
  };
}

const refOf = (job: AcceptItem['job']) =>
  job.idempotencyKey === null
    ? undefined
    : idempotencyRefKey({ tenantId: job.tenantId, key: job.idempotencyKey });

function compareRefs(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return a < b ? -1 : 1;
}

/** One transaction for the whole batch; an answer per item (in order). Throws if it failed. */
export async function writeBatch(
  tx: Db,
  items: readonly AcceptItem[],
  dispatch: DispatchPath,
  insert: InsertJobs = insertAcceptedJobs,
): Promise<AcceptAnswer[]> {
  const answers = new Array<AcceptAnswer | undefined>(items.length);
  const jobs = items.map((i) => i.job);

  // Files first (a request naming a missing file is NOT_FOUND even if it repeats a key).
  const fileRefs = jobs.flatMap((j) =>
    j.fileIds.map((fileId) => ({ tenantId: j.tenantId, fileId })),
  );
  if (fileRefs.length > 0) {
    const owned = await ownedFileRefs(tx, fileRefs);
    jobs.forEach((j, i) => {
      // Another tenant's file answers exactly like a missing one.
      if (j.fileIds.some((f) => !owned.has(`${j.tenantId}\u0000${f}`)))
        answers[i] = { ok: false, error: new SluiceError('NOT_FOUND', 'file not found') };
    });
  }

  // Idempotency: a stored job answers; within the batch the first request of a key leads.
  const refs = jobs.flatMap((j, i) =>
    answers[i] || j.idempotencyKey === null
      ? []
      : [{ tenantId: j.tenantId, key: j.idempotencyKey }],
  );
  const stored = refs.length > 0 ? await findByIdempotencyKeys(tx, refs) : new Map();
  const leaders = new Map<string, number>();
  const followers: [number, number][] = [];
  jobs.forEach((j, i) => {
    const ref = refOf(j);
    if (answers[i] || ref === undefined) return;
    const existing = stored.get(ref);
    if (existing) answers[i] = duplicateOf(existing, j);
    else if (leaders.has(ref)) followers.push([i, leaders.get(ref) as number]);
    else leaders.set(ref, i);
  });

  const following = new Set(followers.map(([f]) => f));
  // Keyed rows in key order: two batches in flight (PostgreSQL) that share keys wait on each
  // other's unique-index entries in one order, never in a cycle.
  const fresh = jobs
    .flatMap((_j, i) => (answers[i] || following.has(i) ? [] : [i]))
    .sort((a, b) =>
      compareRefs(refOf(jobs[a] as AcceptItem['job']), refOf(jobs[b] as AcceptItem['job'])),
    );
  const written = await insert(
    tx,
    fresh.map((i) => jobs[i] as AcceptedJob),
  );
  const eventsOf = new Map<string, StoredEvent[]>();
  for (const e of written.events) {
    const list = eventsOf.get(e.event.jobId);
    if (list) list.push(e);
    else eventsOf.set(e.event.jobId, [e]);
  }
  const pointers: MessagePointer[] = [];
  const fileIds: string[] = [];
  const originals = new Map<number, Original>();
  for (const i of fresh) {
    const { job, route } = items[i] as AcceptItem;
    if (!written.inserted.has(job.id)) {
      // Another writer stored this key since the read above (its transaction committed first).
      const existing =
        job.idempotencyKey === null
          ? undefined
          : await findByIdempotencyKey(tx, job.tenantId, job.idempotencyKey);
      if (!existing) throw new Error(`job ${job.id} was not written`);
      answers[i] = duplicateOf(existing, job);
      originals.set(i, existing);
      continue;
    }
    const state = job.outcome.to;
    originals.set(i, { id: job.id, kind: job.kind, inputHash: job.inputHash, state });
    fileIds.push(...job.fileIds);
    const pointer: MessagePointer = {
      jobId: job.id,
      kind: job.kind,
      version: job.version,
      tenantId: job.tenantId,
      priority: job.priority,
    };
    // The row as just written travels along: the worker starts a first delivery from it
    // without reading the row back (its first write is fenced on this epoch and last_seq).
    const createdAt = dispatch.snapshots ? eventsOf.get(job.id)?.[0]?.event.at : undefined;
    const snapshot = createdAt === undefined ? undefined : acceptedSnapshot(job, createdAt);
    if (snapshot) pointer.snapshot = snapshot;
    // A scheduled job has no pointer yet (the due-job scheduler dispatches it when due), unless
    // the runtime's run waits for the due time itself: then it goes out now, with its due time.
    const delayedInRun = state === 'scheduled' && dispatch.delaysInRun;
    if (delayedInRun && job.outcome.to === 'scheduled') pointer.runAt = job.outcome.runAt;
    const ready = route.ok && (state === 'queued' || delayedInRun);
    if (ready) pointers.push(pointer);
    answers[i] = {
      ok: true,
      result: { id: job.id, state, isDuplicate: false },
      events: eventsOf.get(job.id) ?? [],
      ...(ready ? { pointer } : {}),
    };
  }
  for (const [f, leader] of followers) {
    answers[f] = duplicateOf(originals.get(leader) as Original, jobs[f] as AcceptItem['job']);
  }
  await attachFiles(tx, [...new Set(fileIds)]);
  await stageAccepted(tx, dispatch, written, pointers);
  return answers as AcceptAnswer[];
}
