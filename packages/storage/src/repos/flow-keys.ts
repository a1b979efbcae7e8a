// Flow-control keys (migration-flow-control.ts): the statements a flow-controlled submit runs
// inside its one transaction. `lockFlowKey` comes first — an upsert, so it takes the key row's
// lock on PostgreSQL and the write lock on SQLite before anything is read — and every later read
// of the key's open job happens under it. Writes to the open job are compare-and-set on
// `state = 'scheduled'`: the due-job scheduler moves the job on without the key lock, and a job it
// moved first is simply no longer open (the caller opens a new one).

import type { JobState } from '@sluice/contracts';
import type { Db } from '../database.js';
import { fromJson, isoNow, toJson } from '../json.js';

export interface FlowKeyRef {
  tenantId: string;
  kind: string;
  flow: string;
  key: string;
}

/** The key as its lock found it, with its open job (undefined: none, or gone). */
export interface FlowKeySlot {
  jobId: string | null;
  openedAt: number | null;
  closesAt: number | null;
  size: number;
  job: { id: string; state: JobState; runAfter: string | null } | undefined;
}

const ms = (iso: string | null) => (iso === null ? null : Date.parse(iso));
const iso = (at: number | null) => (at === null ? null : isoNow(at));

/** Takes the key's lock (creating its row) and reads its open job. Run it first in the transaction. */
export async function lockFlowKey(tx: Db, ref: FlowKeyRef, now = Date.now()): Promise<FlowKeySlot> {
  const row = await tx
    .insertInto('flow_keys')
    .values({
      tenant_id: ref.tenantId,
      kind: ref.kind,
      flow: ref.flow,
      key: ref.key,
      size: 0,
      updated_at: isoNow(now),
    })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'kind', 'flow', 'key'])
        // A write, not a read: it is what takes the lock.
        .doUpdateSet((eb) => ({ updated_at: eb.ref('excluded.updated_at') })),
    )
    .returning(['job_id', 'opened_at', 'closes_at', 'size'])
    .executeTakeFirstOrThrow();
  const job =
    row.job_id === null
      ? undefined
      : await tx
          .selectFrom('jobs')
          .select(['id', 'state', 'run_after'])
          .where('id', '=', row.job_id)
          .executeTakeFirst();
  return {
    jobId: row.job_id,
    openedAt: ms(row.opened_at),
    closesAt: ms(row.closes_at),
    size: Number(row.size),
    job: job && { id: job.id, state: job.state as JobState, runAfter: job.run_after },
  };
}

/** Points the (locked) key at its open job, or at none. */
export async function setFlowKey(
  tx: Db,
  ref: FlowKeyRef,
  open: { jobId: string | null; openedAt: number | null; closesAt: number | null; size: number },
  now = Date.now(),
): Promise<void> {
  await tx
    .updateTable('flow_keys')
    .set({
      job_id: open.jobId,
      opened_at: iso(open.openedAt),
      closes_at: iso(open.closesAt),
      size: open.size,
      updated_at: isoNow(now),
    })
    .where('tenant_id', '=', ref.tenantId)
    .where('kind', '=', ref.kind)
    .where('flow', '=', ref.flow)
    .where('key', '=', ref.key)
    .execute();
}

/**
 * Trailing debounce: the open job takes this submit's input and due time, if it is still
 * waiting (`scheduled`). False when the due-job scheduler moved it first.
 */
export async function foldIntoScheduled(
  tx: Db,
  jobId: string,
  fold: { input: unknown; inputHash: string; runAfter: number },
  now = Date.now(),
): Promise<boolean> {
  const r = await tx
    .updateTable('jobs')
    .set({
      input: toJson(fold.input),
      input_hash: fold.inputHash,
      run_after: isoNow(fold.runAfter),
      updated_at: isoNow(now),
    })
    .where('id', '=', jobId)
    .where('state', '=', 'scheduled')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Batch: appends one input to the open batch job's input array, if it is still waiting, and
 * returns its index in the array; `runAfter` moves its due time (a full batch is due now).
 * Undefined when the due-job scheduler moved it first.
 */
export async function appendToBatch(
  tx: Db,
  jobId: string,
  input: unknown,
  runAfter: number | undefined,
  now = Date.now(),
): Promise<number | undefined> {
  const row = await tx
    .selectFrom('jobs')
    .select('input')
    .where('id', '=', jobId)
    .where('state', '=', 'scheduled')
    .executeTakeFirst();
  if (!row) return undefined;
  const inputs = fromJson<unknown[]>(row.input);
  const index = inputs.length;
  inputs.push(input);
  const r = await tx
    .updateTable('jobs')
    .set({
      input: toJson(inputs),
      updated_at: isoNow(now),
      ...(runAfter !== undefined ? { run_after: isoNow(runAfter) } : {}),
    })
    .where('id', '=', jobId)
    .where('state', '=', 'scheduled')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1 ? index : undefined;
}

/** Holds a new singleton job (`queue` mode): no due time, a `waiting` reason, a queue row. */
export async function holdForKey(
  tx: Db,
  ref: FlowKeyRef,
  jobId: string,
  now = Date.now(),
): Promise<void> {
  const since = isoNow(now);
  const waiting = { reason: 'singleton', name: `${ref.kind}/${ref.key}`, by: 'concurrency', since };
  await tx
    .updateTable('jobs')
    .set({ run_after: null, waiting: toJson(waiting) })
    .where('id', '=', jobId)
    .execute();
  await tx
    .insertInto('flow_waiting')
    .values({
      job_id: jobId,
      tenant_id: ref.tenantId,
      kind: ref.kind,
      key: ref.key,
      created_at: since,
    })
    .execute();
}

/**
 * The held jobs of a key, oldest first, with their state now; `stillHeld` only those still
 * waiting (`scheduled`), at most `limit` (a submit that only asks "is anyone held?" reads one).
 */
export async function waitingForKey(
  tx: Db,
  ref: Omit<FlowKeyRef, 'flow'>,
  opts: { stillHeld?: boolean; limit?: number } = {},
): Promise<{ jobId: string; state: JobState | undefined }[]> {
  let q = tx
    .selectFrom('flow_waiting as w')
    .leftJoin('jobs as j', 'j.id', 'w.job_id')
    .select(['w.job_id', 'j.state'])
    .where('w.tenant_id', '=', ref.tenantId)
    .where('w.kind', '=', ref.kind)
    .where('w.key', '=', ref.key)
    .orderBy('w.created_at')
    .orderBy('w.job_id');
  if (opts.stillHeld) q = q.where('j.state', '=', 'scheduled');
  if (opts.limit !== undefined) q = q.limit(opts.limit);
  const rows = await q.execute();
  return rows.map((r) => ({ jobId: r.job_id, state: (r.state ?? undefined) as JobState }));
}

/** Drops held jobs from the queue (released, or no longer waiting). */
export async function dropWaiting(tx: Db, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length > 0)
    await tx.deleteFrom('flow_waiting').where('job_id', 'in', jobIds).execute();
}

/** Releases a held job: due now (the due-job scheduler dispatches it), its wait cleared. */
export async function releaseHeldForKey(tx: Db, jobId: string, now = Date.now()): Promise<boolean> {
  const r = await tx
    .updateTable('jobs')
    .set({ run_after: isoNow(now), waiting: null, updated_at: isoNow(now) })
    .where('id', '=', jobId)
    .where('state', '=', 'scheduled')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Keys with held jobs whose current job is absent or in one of `freeStates` (a final state):
 * the ones the due-job scheduler may release a job of.
 */
export async function releasableKeys(
  db: Db,
  freeStates: readonly JobState[],
  limit = 100,
): Promise<{ tenantId: string; kind: string; key: string }[]> {
  const rows = await db
    .selectFrom('flow_waiting as w')
    .leftJoin('flow_keys as k', (join) =>
      join
        .onRef('k.tenant_id', '=', 'w.tenant_id')
        .onRef('k.kind', '=', 'w.kind')
        .onRef('k.key', '=', 'w.key')
        .on('k.flow', '=', 'singleton'),
    )
    .leftJoin('jobs as j', 'j.id', 'k.job_id')
    .select(['w.tenant_id', 'w.kind', 'w.key'])
    .where((eb) => eb.or([eb('j.id', 'is', null), eb('j.state', 'in', [...freeStates])]))
    .groupBy(['w.tenant_id', 'w.kind', 'w.key'])
    .limit(limit)
    .execute();
  return rows.map((r) => ({ tenantId: r.tenant_id, kind: r.kind, key: r.key }));
}
