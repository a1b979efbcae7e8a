// `schedules.*`: recurring schedules of the caller's tenant (another tenant's reads as missing).
// Reading needs `jobs:read`; creating or changing one submits jobs on the key's behalf, so it
// needs `jobs:submit`.
// A schedule's input is validated like a submit's; its cron expression and time zone are read
// here, so a bad one is a BAD_REQUEST that writes nothing. Firing is the due-job scheduler's.

import {
  createScheduleSchema,
  randomToken,
  ScheduleDeleteResult,
  ScheduleIdInput,
  ScheduleListInput,
  ScheduleListResult,
  ScheduleView,
  SluiceError,
  type CreateScheduleInput,
  type JobRegistry,
} from '@sluice/contracts';
import {
  appendAudit,
  deleteSchedule,
  getSchedule,
  insertSchedule,
  listSchedules,
  setSchedulePaused,
  writeTogether,
  type Db,
  type ScheduleRow,
} from '@sluice/storage/portable';
import type { z } from 'zod';
import type { Procedures } from '../trpc/procedures.js';
import { checkCron, nextTick } from '../scheduling/cron.js';
import type { RouterDeps } from './deps.js';

const notFound = () => new SluiceError('NOT_FOUND', 'schedule not found');

export function toScheduleView(s: ScheduleRow): ScheduleView {
  return {
    id: s.id,
    name: s.name,
    kind: s.kind,
    input: s.input,
    cron: s.cron,
    timezone: s.timezone,
    missed: s.missed,
    catchUpLimit: s.catchUpLimit,
    paused: s.paused,
    nextFireAt: s.paused ? null : s.nextFireAt,
    lastFireAt: s.lastFireAt,
    fired: s.fired,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

const iso = (t: number | undefined) => (t === undefined ? null : new Date(t).toISOString());

export function createSchedulesRouter<R extends JobRegistry>(p: Procedures, deps: RouterDeps<R>) {
  const db = deps.database.db;
  const createInput = createScheduleSchema(deps.jobs) as z.ZodType<
    CreateScheduleInput<R>,
    CreateScheduleInput<R>
  >;
  // Every change is in the audit log, written with it (one transaction where the database has
  // them; on D1, right after it): who changed which schedule, and how.
  const audit = (
    tx: Db,
    ctx: { tenantId: string; keyId?: string | null | undefined },
    action: 'schedule.create' | 'schedule.pause' | 'schedule.resume' | 'schedule.delete',
    target: string,
    details: Record<string, unknown> = {},
  ) =>
    appendAudit(tx, [
      { tenantId: ctx.tenantId, keyId: ctx.keyId ?? null, action, target, note: null, details },
    ]);
  const write = <T>(fn: (tx: Db) => Promise<T>) => writeTogether(deps.database, fn);
  const own = async (tenantId: string, id: string) => {
    const s = await getSchedule(db, tenantId, id);
    if (!s) throw notFound();
    return s;
  };
  return p.router({
    create: p
      .scoped('jobs:submit')
      .input(createInput)
      .output(ScheduleView)
      .mutation(async ({ ctx, input }) => {
        const timezone = input.timezone ?? 'UTC';
        checkCron(input.cron, timezone);
        const first = nextTick(input.cron, timezone, Date.now());
        const row = await write(async (tx) => {
          const inserted = await insertSchedule(tx, {
            id: `s_${randomToken()}`,
            tenantId: ctx.tenantId,
            name: input.name ?? null,
            kind: input.kind,
            input: input.input,
            cron: input.cron,
            timezone,
            missed: input.missed ?? 'skip',
            catchUpLimit: input.catchUpLimit ?? 10,
            paused: input.paused ?? false,
            nextFireAt: iso(first),
          });
          if (!inserted) throw new SluiceError('CONFLICT', 'a schedule of that name exists');
          await audit(tx, ctx, 'schedule.create', inserted.id, {
            kind: inserted.kind,
            cron: inserted.cron,
            timezone: inserted.timezone,
            name: inserted.name,
          });
          return inserted;
        });
        if (first !== undefined && !row.paused) deps.onScheduleTick?.(first);
        return toScheduleView(row);
      }),

    get: p
      .scoped('jobs:read')
      .input(ScheduleIdInput)
      .output(ScheduleView)
      .query(async ({ ctx, input }) => toScheduleView(await own(ctx.tenantId, input.id))),

    list: p
      .scoped('jobs:read')
      .input(ScheduleListInput)
      .output(ScheduleListResult)
      .query(async ({ ctx, input }) => {
        const page = await listSchedules(db, ctx.tenantId, input);
        return { items: page.items.map(toScheduleView), nextCursor: page.nextCursor };
      }),

    pause: p
      .scoped('jobs:submit')
      .input(ScheduleIdInput)
      .output(ScheduleView)
      .mutation(async ({ ctx, input }) => {
        const row = await write(async (tx) => {
          const paused = await setSchedulePaused(tx, ctx.tenantId, input.id, true, null);
          if (!paused) throw notFound();
          await audit(tx, ctx, 'schedule.pause', paused.id);
          return paused;
        });
        return toScheduleView(row);
      }),

    // Resuming owes nothing for the paused time: the next tick is the first one after now.
    resume: p
      .scoped('jobs:submit')
      .input(ScheduleIdInput)
      .output(ScheduleView)
      .mutation(async ({ ctx, input }) => {
        const s = await own(ctx.tenantId, input.id);
        const next = nextTick(s.cron, s.timezone, Date.now());
        const row = await write(async (tx) => {
          const resumed = await setSchedulePaused(tx, ctx.tenantId, input.id, false, iso(next));
          if (!resumed) throw notFound();
          await audit(tx, ctx, 'schedule.resume', resumed.id);
          return resumed;
        });
        if (next !== undefined) deps.onScheduleTick?.(next);
        return toScheduleView(row);
      }),

    delete: p
      .scoped('jobs:submit')
      .input(ScheduleIdInput)
      .output(ScheduleDeleteResult)
      .mutation(async ({ ctx, input }) => {
        const deleted = await write(async (tx) => {
          const gone = await deleteSchedule(tx, ctx.tenantId, input.id);
          if (!gone) throw notFound();
          await audit(tx, ctx, 'schedule.delete', input.id);
          return gone;
        });
        return { id: input.id, deleted };
      }),
  });
}
