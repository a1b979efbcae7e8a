// Background work of one consumer: the served-versions heartbeat (a ZSET per kind, scored by
// expiry, `ZADD GT` so the newest heartbeat of any worker wins), trimming below the oldest
// pending or undelivered entry, removing long-idle consumers that hold nothing, and the figures
// for `/metrics`.

import { type RuntimeQueueStats, type RuntimeStats } from '@sluice/contracts';
import {
  isNoGroupError,
  parseFlatRecords,
  parseXPendingRange,
  parseXPendingSummary,
  streamIdTime,
} from '../replies.js';
import { mergeBandStats } from './bands.js';
import type { StreamInfo, StreamsContext } from './context.js';
import { REAP_IDLE_CONSUMERS, TRIM_BELOW_WORK } from './scripts.js';
import type { StreamsClient } from './types.js';

/** How many of the oldest pending entries the delivery-count figure looks at. */
const DELIVERY_SAMPLE = 100;

export class StreamsMaintenance {
  constructor(
    private readonly ctx: StreamsContext,
    private readonly commands: StreamsClient,
  ) {}

  async heartbeat(): Promise<void> {
    const { opts } = this.ctx;
    const expires = Date.now() + opts.servedTtlMs;
    await Promise.all(
      opts.versions.map((v) => this.commands.zaddGt(opts.keys.served(v.kind), expires, v.version)),
    );
  }

  /** Versions of `kind` whose newest heartbeat has not expired. */
  async servedVersions(kind: string): Promise<string[]> {
    const versions = await this.commands.zrangeByScoreFrom(
      this.ctx.opts.keys.served(kind),
      Date.now(),
    );
    return [...versions].sort();
  }

  /** Trims every job stream below its work, and reaps idle empty consumers. */
  async maintain(): Promise<void> {
    const { opts, streams, counters } = this.ctx;
    const replies = await this.commands.runScripts([
      ...streams.map((s) => ({ script: TRIM_BELOW_WORK, keys: [s.stream], args: [] })),
      ...streams.map((s) => ({
        script: REAP_IDLE_CONSUMERS,
        keys: [s.stream],
        args: [opts.keys.group, opts.reapConsumersIdleMs, opts.consumerName],
      })),
    ]);
    replies.forEach((r, i) => {
      if (!r.ok) {
        // A missing group is the read path's to recreate; anything else is worth a report.
        if (!isNoGroupError(r.error)) opts.onError(r.error);
        return;
      }
      if (i < streams.length) counters.trimmed += Number(r.value);
      else counters.reapedConsumers += Number(r.value);
    });
  }

  /** The counters always; a queue whose figures cannot be read right now is left out. */
  async stats(): Promise<RuntimeStats> {
    const settled = await Promise.allSettled(this.ctx.streams.map((s) => this.queueStats(s)));
    const queues = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    return { queues: mergeBandStats(queues), counters: { ...this.ctx.counters } };
  }

  private async queueStats(info: StreamInfo): Promise<RuntimeQueueStats> {
    const { commands } = this;
    const group = this.ctx.opts.keys.group;
    const [length, deadLetters] = await Promise.all([
      commands.xlen(info.stream),
      commands.xlen(info.deadLetters),
    ]);
    const empty: RuntimeQueueStats = {
      kind: info.kind,
      version: info.version,
      length,
      pending: 0,
      lag: null,
      oldestPendingAgeMs: null,
      maxDeliveries: 0,
      deadLetters,
      consumers: [],
    };
    try {
      const [summary, oldest, groups, consumers] = await Promise.all([
        commands.xpendingSummary(info.stream, group).then(parseXPendingSummary),
        commands
          .xpendingRange(info.stream, group, '-', '+', DELIVERY_SAMPLE)
          .then(parseXPendingRange),
        commands.xinfoGroups(info.stream).then(parseFlatRecords),
        commands.xinfoConsumers(info.stream, group).then(parseFlatRecords),
      ]);
      const ours = groups.find((g) => g.name === group);
      const lag = ours?.lag;
      return {
        ...empty,
        pending: summary.count,
        lag: typeof lag === 'number' ? lag : null,
        oldestPendingAgeMs: summary.minId
          ? Math.max(0, Date.now() - streamIdTime(summary.minId))
          : null,
        maxDeliveries: oldest.reduce((m, p) => Math.max(m, p.deliveries), 0),
        consumers: consumers.map((c) => ({
          name: String(c.name),
          pending: Number(c.pending),
          idleMs: Number(c.idle),
        })),
      };
    } catch (error) {
      if (isNoGroupError(error) || /no such key/i.test(String(error))) return empty;
      throw error;
    }
  }
}
