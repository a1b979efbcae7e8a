// Taking over the pending entries of consumers whose worker died, sooner than their claims idle
// out. The host knows who is dead (worker liveness in the job database: a worker id is its
// consumer name) and asks `holders()` first, then `takeOver(dead)`. XCLAIM moves each dead
// consumer's entries to this consumer, but only entries idle for `TAKE_OVER_MIN_IDLE_MS`: a dead
// consumer's entries have idled since its last renewal, and an entry another live worker has just
// taken over is fresh again, so two workers acting on the same death never take one entry from
// each other. The job rows are fenced as on any reclaim (their leases were ended by the reap).

import { parseEntries, parseXPendingRange, parseXPendingSummary } from '../replies.js';
import type { StreamsContext } from './context.js';
import type { StreamsReader } from './reader.js';
import type { StreamsClient } from './types.js';

export const TAKE_OVER_MIN_IDLE_MS = 1000;
/** Entries moved per dead consumer and stream in one round (the next round takes the rest). */
const TAKE_OVER_BATCH = 256;

/** The consumers that hold pending entries on any stream this consumer reads. */
export async function pendingHolders(
  ctx: StreamsContext,
  commands: StreamsClient,
): Promise<string[]> {
  const names = new Set<string>();
  for (const info of ctx.streams) {
    const summary = parseXPendingSummary(
      await commands.xpendingSummary(info.stream, ctx.opts.keys.group),
    );
    for (const c of summary.consumers) if (c.pending > 0) names.add(c.name);
  }
  return [...names];
}

export async function takeOverDead(
  ctx: StreamsContext,
  commands: StreamsClient,
  reader: StreamsReader,
  dead: readonly string[],
): Promise<void> {
  const group = ctx.opts.keys.group;
  for (const name of dead) {
    if (name === ctx.opts.consumerName) continue;
    for (const info of ctx.streams) {
      const pending = parseXPendingRange(
        await commands.xpendingRange(info.stream, group, '-', '+', TAKE_OVER_BATCH, name),
      );
      const ids = pending.filter((p) => p.idleMs >= TAKE_OVER_MIN_IDLE_MS).map((p) => p.id);
      if (ids.length === 0) continue;
      const entries = parseEntries(
        await commands.xclaim(
          info.stream,
          group,
          ctx.opts.consumerName,
          TAKE_OVER_MIN_IDLE_MS,
          ids,
        ),
        'XCLAIM',
      );
      ctx.counters.takenOver += entries.length;
      await reader.adopt(info, entries);
    }
  }
}
