// The due time of a wait, a sleep or a token's expiry, from what a handler passes. Its own module
// because both the attempt's waits and its tokens read it (each importing the other was a circle).

import { MAX_WAIT_MS, NonRetriableError, parseDurationMs } from '@sluice/contracts';

/** Milliseconds from a number, a duration text (`'15m'`) or a time (`Date`, ISO text). */
export function untilMs(duration: number | Date | string, now: number, field: string): number {
  let at: number;
  if (typeof duration === 'number') at = now + duration;
  else if (duration instanceof Date) at = duration.getTime();
  else {
    const ms = parseDurationMs(duration);
    at = ms !== undefined ? now + ms : Date.parse(duration);
  }
  if (!Number.isFinite(at) || at - now > MAX_WAIT_MS)
    throw new NonRetriableError(`${field}: not a duration or time within a year`);
  return at;
}
