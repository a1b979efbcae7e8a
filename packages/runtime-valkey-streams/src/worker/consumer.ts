// The Valkey Streams runtime's consume half: consumer groups on one stream per (kind, version).
// At-least-once: XREADGROUP puts an entry in the group's pending list, the host acknowledges it
// only after the job's outcome is stored. Attempts are counted in the database (re-reading one's
// own pending list inflates Redis's delivery count). The parts: `reader` (own pending → claims →
// new), `finisher` (owner-checked renew/ack/release/dead-letter), `groups` (create, NOGROUP),
// `maintenance` (heartbeat, trim, stats).

import { type RuntimeConsumer, type RuntimeStats } from '@sluice/contracts';
import { every, type Periodic } from '@sluice/worker/node';
import { encodeStreamEvents, groupStreamEvents } from '../events.js';
import { createContext, STREAMS_CAPABILITIES, type StreamsConsumerOptions } from './context.js';
import { StreamsFinisher } from './finisher.js';
import { GroupKeeper, rateLimited } from './groups.js';
import { StreamsMaintenance } from './maintenance.js';
import { StreamsReader } from './reader.js';
import { pendingHolders, takeOverDead } from './take-over.js';
import type { StreamsDelivery } from './types.js';

export interface StreamsConsumer extends RuntimeConsumer<StreamsDelivery> {
  stats(): Promise<RuntimeStats>;
  /** Versions of `kind` some live worker serves (the served-versions ZSET), for the unroutable sweep. */
  servedVersions(kind: string): Promise<readonly string[]>;
}

export function createStreamsConsumer(options: StreamsConsumerOptions): StreamsConsumer {
  const ctx = createContext(options);
  const { opts } = ctx;
  const { commands, blocking } = opts.connections;
  const groups = new GroupKeeper(ctx, commands);
  const maintenance = new StreamsMaintenance(ctx, commands);
  const background = rateLimited(1000, (error) => opts.onError(error));
  const reader: StreamsReader = new StreamsReader({
    ctx,
    commands,
    blocking,
    groups,
    malformed: (info, entry) => finisher.malformed(info, entry),
    sweepFailed: (error) => background(error),
  });
  const finisher: StreamsFinisher = new StreamsFinisher(ctx, commands, groups, reader);
  const timers: Periodic[] = [];
  let closing: Promise<void> | undefined;

  return {
    name: 'valkey-streams',
    capabilities: STREAMS_CAPABILITIES,

    async init() {
      await groups.create();
      await maintenance.heartbeat();
      if (timers.length === 0 && !closing) {
        timers.push(every(opts.heartbeatEveryMs, () => maintenance.heartbeat(), background));
        if (opts.maintainEveryMs > 0)
          timers.push(every(opts.maintainEveryMs, () => maintenance.maintain(), background));
      }
    },

    read: (max, signal) => (closing ? Promise.resolve([]) : reader.read(max, signal)),
    renew: (deliveries) => finisher.renew(deliveries),
    ack: (deliveries) => finisher.ack(deliveries),
    release: (deliveries, delayMs) => finisher.release(deliveries, delayMs),
    deadLetter: (delivery, reason) => finisher.deadLetter(delivery, reason),

    async publishEvents(events) {
      if (events.length === 0) return;
      // One entry per run of a job's consecutive events (one row in the database).
      await commands.xaddMany(
        groupStreamEvents(events).map((group) => ({
          stream: opts.keys.events,
          fields: encodeStreamEvents(group),
          maxLen: opts.eventsMaxLen,
        })),
      );
    },

    stats: () => maintenance.stats(),
    holders: () => pendingHolders(ctx, commands),
    takeOver: (dead) => takeOverDead(ctx, commands, reader, dead),
    servedVersions: (kind) => maintenance.servedVersions(kind),

    close() {
      closing ??= (async () => {
        for (const t of timers.splice(0)) t.stop();
        // The served-versions entry is left to expire: it names versions, not workers, so
        // removing it here would hide versions other live workers still serve (a rolling
        // restart would dead-letter their jobs at dispatch).
        if (opts.ownsConnections) await opts.connections.close();
      })();
      return closing;
    },
  };
}
