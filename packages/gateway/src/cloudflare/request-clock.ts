// The gatekeeper's periodic work on Workers, which have no background timers: an isolate only
// runs while it serves a request. `every` registers the task; `runDue` runs the tasks whose period
// has passed and is handed to `ctx.waitUntil` after each request, so stream re-checks and the
// batched `last_used_at` write still happen, at most once per period, while traffic flows.

import type { Every } from '../auth/gatekeeper.js';

export interface RequestClock {
  readonly every: Every;
  /** Runs every task that is due at `now`; resolves when they have finished. */
  runDue(now?: number): Promise<void>;
}

export function createRequestClock(start = Date.now()): RequestClock {
  const tasks = new Set<{ ms: number; next: number; fn: () => void | Promise<void> }>();
  return {
    every(ms, fn) {
      const task = { ms, next: start + ms, fn };
      tasks.add(task);
      return () => tasks.delete(task);
    },
    async runDue(now = Date.now()) {
      const due = [...tasks].filter((t) => t.next <= now);
      for (const t of due) t.next = now + t.ms;
      await Promise.all(due.map(async (t) => t.fn()));
    },
  };
}
