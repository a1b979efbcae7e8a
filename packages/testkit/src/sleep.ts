import { setTimeout as delay } from 'node:timers/promises';

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return delay(ms);
}
