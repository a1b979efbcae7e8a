// Fires recurring schedules: each due tick becomes one job, submitted through the accept path
// with the idempotency key `schedule:<id>:<tick>`, so a tick fired twice (two gateways, or a
// crash between the submit and the advance) still makes ONE job. Then the schedule moves to its
// first tick after now by compare-and-set; a gateway that lost that race changed nothing else.

import { isSluiceError, type SubmitResult } from '@sluice/contracts';
import {
  addFired,
  advanceSchedule,
  dueSchedules,
  nextScheduleTick,
  type Db,
} from '@sluice/storage/portable';
import type { SubmitRequest } from '../accept/accept.js';
import { nextTick, ticksOwed } from './cron.js';

export type Accept = (tenantId: string, request: SubmitRequest) => Promise<SubmitResult>;

export interface ScheduleFirer {
  /** Fires what is due at `now`; resolves with the jobs made. */
  fire(now: number): Promise<number>;
  /** The earliest next tick of any active schedule. */
  nextTick(): Promise<number | undefined>;
}

export const scheduleTickKey = (scheduleId: string, tick: number) =>
  `schedule:${scheduleId}:${new Date(tick).toISOString()}`;

export function createScheduleFirer(opts: {
  db: Db;
  accept: Accept;
  onError: (error: unknown, scheduleId: string) => void;
  pageSize?: number;
}): ScheduleFirer {
  const { db } = opts;
  return {
    nextTick: () => nextScheduleTick(db),
    async fire(now) {
      let made = 0;
      for (const s of await dueSchedules(db, now, opts.pageSize ?? 100)) {
        if (s.nextFireAt === null) continue;
        const due = Date.parse(s.nextFireAt);
        const ticks = ticksOwed(s.cron, s.timezone, due, now, s.missed, s.catchUpLimit);
        let fired = 0;
        for (const tick of ticks) {
          try {
            const r = await opts.accept(s.tenantId, {
              kind: s.kind,
              input: s.input,
              idempotencyKey: scheduleTickKey(s.id, tick),
            });
            if (!r.isDuplicate) fired++;
          } catch (error) {
            // A request the accept path refuses (its kind left the registry) is skipped, told
            // and not retried; anything else (the database) ends the pass and is retried.
            if (!isSluiceError(error) || error.code !== 'BAD_REQUEST') throw error;
            opts.onError(error, s.id);
          }
        }
        const next = nextTick(s.cron, s.timezone, now);
        const moved = await advanceSchedule(
          db,
          {
            id: s.id,
            from: s.nextFireAt,
            to: next === undefined ? null : new Date(next).toISOString(),
            lastFireAt: new Date(ticks[ticks.length - 1] ?? due).toISOString(),
            fired,
          },
          now,
        );
        // The jobs were made either way: count them even if another gateway moved it first.
        if (!moved && fired > 0) await addFired(db, s.id, fired);
        made += fired;
      }
      return made;
    },
  };
}
