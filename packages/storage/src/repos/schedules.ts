// Recurring schedules, tenant-scoped like jobs (another tenant's schedule reads as missing). The
// cron arithmetic lives in the gateway; storage keeps rows and moves `next_fire_at` forward by
// compare-and-set, so a tick is advanced once whatever the number of gateways.

import type { Db } from '../database.js';
import { fromJson, isoNow, toJson } from '../json.js';
import type { SchedulesTable } from '../schema.js';

export type MissedTickPolicy = 'skip' | 'catch_up';

export interface ScheduleRow {
  id: string;
  tenantId: string;
  name: string | null;
  kind: string;
  input: unknown;
  cron: string;
  timezone: string;
  missed: MissedTickPolicy;
  catchUpLimit: number;
  paused: boolean;
  nextFireAt: string | null;
  lastFireAt: string | null;
  fired: number;
  createdAt: string;
  updatedAt: string;
}

export type NewSchedule = Omit<ScheduleRow, 'lastFireAt' | 'fired' | 'createdAt' | 'updatedAt'>;

function toScheduleRow(r: SchedulesTable): ScheduleRow {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    name: r.name,
    kind: r.kind,
    input: fromJson(r.input),
    cron: r.cron,
    timezone: r.timezone,
    missed: r.missed as MissedTickPolicy,
    catchUpLimit: Number(r.catch_up_limit),
    paused: Number(r.paused) === 1,
    nextFireAt: r.next_fire_at,
    lastFireAt: r.last_fire_at,
    fired: Number(r.fired),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The stored schedule, or `undefined` when its name is taken in the tenant. */
export async function insertSchedule(
  db: Db,
  s: NewSchedule,
  now = Date.now(),
): Promise<ScheduleRow | undefined> {
  const at = isoNow(now);
  const row = await db
    .insertInto('schedules')
    .values({
      id: s.id,
      tenant_id: s.tenantId,
      name: s.name,
      kind: s.kind,
      input: toJson(s.input),
      cron: s.cron,
      timezone: s.timezone,
      missed: s.missed,
      catch_up_limit: s.catchUpLimit,
      paused: s.paused ? 1 : 0,
      next_fire_at: s.nextFireAt,
      last_fire_at: null,
      fired: 0,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  return row ? toScheduleRow(row) : undefined;
}

export async function getSchedule(
  db: Db,
  tenantId: string,
  id: string,
): Promise<ScheduleRow | undefined> {
  const row = await db
    .selectFrom('schedules')
    .selectAll()
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row ? toScheduleRow(row) : undefined;
}

/** Newest first; `cursor` is the last id of the previous page. */
export async function listSchedules(
  db: Db,
  tenantId: string,
  opts: { cursor?: string | null | undefined; limit: number },
): Promise<{ items: ScheduleRow[]; nextCursor: string | null }> {
  let q = db.selectFrom('schedules').selectAll().where('tenant_id', '=', tenantId);
  if (opts.cursor) {
    const after = await db
      .selectFrom('schedules')
      .select(['created_at', 'id'])
      .where('id', '=', opts.cursor)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (after) {
      q = q.where((eb) =>
        eb.or([
          eb('created_at', '<', after.created_at),
          eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)]),
        ]),
      );
    }
  }
  const rows = await q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(opts.limit + 1)
    .execute();
  const items = rows.slice(0, opts.limit).map(toScheduleRow);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > opts.limit && last ? last.id : null };
}

/** Pauses or resumes; a resume sets the next tick the caller computed from now. */
export async function setSchedulePaused(
  db: Db,
  tenantId: string,
  id: string,
  paused: boolean,
  nextFireAt: string | null,
  now = Date.now(),
): Promise<ScheduleRow | undefined> {
  const row = await db
    .updateTable('schedules')
    .set({
      paused: paused ? 1 : 0,
      ...(paused ? {} : { next_fire_at: nextFireAt }),
      updated_at: isoNow(now),
    })
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .returningAll()
    .executeTakeFirst();
  return row ? toScheduleRow(row) : undefined;
}

export async function deleteSchedule(db: Db, tenantId: string, id: string): Promise<boolean> {
  const rows = await db
    .deleteFrom('schedules')
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** Active schedules whose next tick is due at `now`, earliest first (every tenant). */
export async function dueSchedules(db: Db, now: number, limit: number): Promise<ScheduleRow[]> {
  const rows = await db
    .selectFrom('schedules')
    .selectAll()
    .where('paused', '=', 0)
    .where('next_fire_at', '<=', isoNow(now))
    .orderBy('next_fire_at')
    .limit(limit)
    .execute();
  return rows.map(toScheduleRow);
}

/** The earliest next tick of any active schedule (epoch ms), or `undefined`. */
export async function nextScheduleTick(db: Db): Promise<number | undefined> {
  const row = await db
    .selectFrom('schedules')
    .select((eb) => eb.fn.min('next_fire_at').as('at'))
    .where('paused', '=', 0)
    .executeTakeFirst();
  return row?.at ? Date.parse(row.at) : undefined;
}

/**
 * Moves a schedule from the tick `from` to `to` (null: no further tick), counting `fired` jobs.
 * False when another gateway moved it first, or it was paused or deleted meanwhile.
 */
export async function advanceSchedule(
  db: Db,
  r: { id: string; from: string; to: string | null; lastFireAt: string; fired: number },
  now = Date.now(),
): Promise<boolean> {
  const rows = await db
    .updateTable('schedules')
    .set((eb) => ({
      next_fire_at: r.to,
      last_fire_at: r.lastFireAt,
      fired: eb('fired', '+', r.fired),
      updated_at: isoNow(now),
    }))
    .where('id', '=', r.id)
    .where('next_fire_at', '=', r.from)
    .where('paused', '=', 0)
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** Counts jobs a gateway made for a schedule it did not get to advance (paused or raced). */
export async function addFired(db: Db, id: string, fired: number): Promise<void> {
  await db
    .updateTable('schedules')
    .set((eb) => ({ fired: eb('fired', '+', fired) }))
    .where('id', '=', id)
    .execute();
}
