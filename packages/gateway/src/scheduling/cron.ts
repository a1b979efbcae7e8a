// Cron arithmetic on croner (a maintained library with time zones and DST handled), behind three
// functions: check an expression, its next tick after an instant, and the ticks owed after
// downtime. Expressions are 5 fields (minute precision) or 6 (seconds first).

import { SluiceError, type MissedTickPolicy } from '@sluice/contracts';
import { Cron } from 'croner';

function cronOf(expression: string, timezone: string): Cron {
  const fields = expression.trim().split(/\s+/).length;
  if (fields < 5 || fields > 6) {
    throw new SluiceError('BAD_REQUEST', 'cron needs 5 fields (or 6 with seconds first)', {
      details: { cron: expression },
    });
  }
  let cron: Cron;
  try {
    cron = new Cron(expression, { timezone, paused: true });
    cron.nextRun(); // an unknown time zone throws only when a date is computed
  } catch (error) {
    throw new SluiceError('BAD_REQUEST', `invalid schedule: ${(error as Error).message}`, {
      details: { cron: expression, timezone },
    });
  }
  return cron;
}

/** Throws BAD_REQUEST for an expression or zone that cannot be read. */
export function checkCron(expression: string, timezone: string): void {
  cronOf(expression, timezone);
}

/** The first tick strictly after `after` (epoch ms), or `undefined` when there is none. */
export function nextTick(expression: string, timezone: string, after: number): number | undefined {
  return cronOf(expression, timezone).nextRun(new Date(after))?.getTime();
}

/**
 * The ticks to fire now for a schedule due since `due` (a tick ≤ `now`), oldest first: the
 * latest one under `skip`; under `catch_up`, each tick from `due` to `now`, the latest `limit`.
 */
export function ticksOwed(
  expression: string,
  timezone: string,
  due: number,
  now: number,
  policy: MissedTickPolicy,
  limit: number,
): number[] {
  const want = policy === 'skip' ? 1 : limit;
  const latest = cronOf(expression, timezone)
    .previousRuns(want, new Date(now + 1))
    .map((d) => d.getTime())
    .filter((t) => t >= due);
  // `due` itself is a tick by construction; keep it when nothing later is found (clock skew).
  return (latest.length > 0 ? latest : [due]).sort((a, b) => a - b);
}
