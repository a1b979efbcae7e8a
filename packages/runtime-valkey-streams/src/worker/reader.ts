// One `read(max)`: after a (re)start this consumer's own pending entries first (`XREADGROUP … 0`,
// a cursor per stream), then, when the sweep timer says so, idle entries of dead consumers
// (`XAUTOCLAIM`, at most `claimCount` per sweep), then new entries (`>`) of the first non-empty
// priority band (bands.ts), and only when every band is empty a BLOCK over all streams on the
// dedicated connection under a watchdog. Own pending and claims cover the streams of every band. Never more than `max` comes back: the server applies
// COUNT per stream, so a surplus waits in a small buffer (renewed with the held deliveries).

import { decodePointer } from '@sluice/contracts';
import { parseXAutoClaim, parseXPendingRange, parseXRead, type StreamEntry } from '../replies.js';
import { bandOrder, readFirstBand } from './bands.js';
import { readNewEntries, type BlockTarget } from './blocking-read.js';
import { groupBySlot } from '../keys.js';
import { deliveryId, type StreamInfo, type StreamsContext } from './context.js';
import type { GroupKeeper } from './groups.js';
import type { BlockingStreamsClient, StreamsClient, StreamsDelivery } from './types.js';

export interface ReaderDeps {
  ctx: StreamsContext;
  commands: StreamsClient;
  blocking: BlockingStreamsClient;
  groups: GroupKeeper;
  /** Entries whose pointer cannot be read: the consumer dead-letters them itself. */
  malformed(info: StreamInfo, entry: StreamEntry): Promise<void>;
  /** A failed claim sweep (reported, rate-limited; the read goes on to new entries). */
  sweepFailed(error: unknown): void;
}

export class StreamsReader {
  private recovering = true;
  private readonly ownCursor = new Map<string, string>();
  private readonly claimCursor = new Map<string, string>();
  private nextSweepAt = 0;
  private claimedThisSweep = 0;
  private buffer: StreamsDelivery[] = [];
  private newReads = 0;
  private slots: StreamInfo[][] | undefined;
  private blockTurn = 0;

  constructor(private readonly deps: ReaderDeps) {}

  /** Delivered to this consumer, not handed to the host yet (renewed along with held ones). */
  get buffered(): readonly StreamsDelivery[] {
    return this.buffer;
  }

  /**
   * Entries just claimed from dead consumers (`take-over.ts`): handed out by the next read, ahead
   * of everything else.
   */
  async adopt(info: StreamInfo, entries: readonly StreamEntry[]): Promise<void> {
    const fresh = entries.filter(
      (e) => !this.deps.ctx.outstanding.has(deliveryId(info.stream, e.id)),
    );
    if (fresh.length === 0) return;
    const counts = await this.counts(
      info,
      fresh.map((e) => e.id),
    );
    this.buffer.push(...(await this.toDeliveries(info, fresh, counts)));
    // A read blocked on new entries would hold them back for up to its block time.
    await this.deps.blocking.interrupt().catch(() => this.deps.blocking.reset());
  }

  dropBuffered(ids: ReadonlySet<string>): void {
    this.buffer = this.buffer.filter((d) => !ids.has(d.id));
  }

  async read(max: number, signal?: AbortSignal): Promise<StreamsDelivery[]> {
    if (max <= 0 || signal?.aborted) return [];
    const { groups } = this.deps;
    await groups.ready();
    try {
      return await this.readOnce(max, signal);
    } catch (error) {
      if (!groups.noted(error)) throw error;
    }
    // The groups are gone (a restart without persistence): make them again at once and read;
    // if that fails too, the host's backoff and GroupKeeper's pace the next tries.
    await groups.ready();
    try {
      return await this.readOnce(max, signal);
    } catch (error) {
      groups.noted(error);
      throw error;
    }
  }

  private async readOnce(max: number, signal?: AbortSignal): Promise<StreamsDelivery[]> {
    if (this.buffer.length > 0) return this.handOut([], max);
    if (this.recovering) {
      const own = await this.ownPending(max);
      if (own.length > 0) return this.handOut(own, max);
    }
    if (Date.now() >= this.nextSweepAt) {
      const claimed = await this.sweepOrSkip(max);
      if (claimed.length > 0) return this.handOut(claimed, max);
    }
    return this.handOut(await this.readNew(max, signal), max);
  }

  private handOut(got: StreamsDelivery[], max: number): StreamsDelivery[] {
    const all = [...this.buffer, ...got];
    this.buffer = all.slice(max);
    const now = Date.now();
    for (const d of all) this.deps.ctx.outstanding.set(d.id, now);
    return all.slice(0, max);
  }

  private async toDeliveries(
    info: StreamInfo,
    entries: readonly StreamEntry[],
    counts: ReadonlyMap<string, number>,
    fresh = false,
  ): Promise<StreamsDelivery[]> {
    const out: StreamsDelivery[] = [];
    for (const entry of entries) {
      let pointer = null;
      if (entry.fields !== null) {
        try {
          pointer = decodePointer(entry.fields);
        } catch {
          await this.deps.malformed(info, entry);
          continue;
        }
      }
      out.push({
        id: deliveryId(info.stream, entry.id),
        stream: info.stream,
        entryId: entry.id,
        pointer,
        transportDeliveries: counts.get(entry.id) ?? 1,
        fresh,
      });
    }
    return out;
  }

  /** Delivery counts of this consumer's entries between two ids (informational). */
  private async counts(info: StreamInfo, ids: readonly string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const { ctx, commands } = this.deps;
    const sorted = [...ids].sort(compareIds);
    const reply = await commands.xpendingRange(
      info.stream,
      ctx.opts.keys.group,
      sorted[0] as string,
      sorted.at(-1) as string,
      Math.min(1000, ids.length + ctx.outstanding.size + 16),
      ctx.opts.consumerName,
    );
    return new Map(parseXPendingRange(reply).map((p) => [p.id, p.deliveries]));
  }

  private async ownPending(max: number): Promise<StreamsDelivery[]> {
    const { ctx, commands } = this.deps;
    const got: StreamsDelivery[] = [];
    let open = 0;
    for (const info of ctx.streams) {
      const cursor = this.ownCursor.get(info.stream) ?? '0';
      if (cursor === 'done') continue;
      open++;
      if (got.length >= max) continue;
      const reply = await commands.xreadgroup({
        group: ctx.opts.keys.group,
        consumer: ctx.opts.consumerName,
        streams: [[info.stream, cursor]],
        count: max - got.length,
      });
      const entries = parseXRead(reply)[0]?.entries ?? [];
      const last = entries.at(-1);
      this.ownCursor.set(info.stream, last ? last.id : 'done');
      if (!last) open--;
      const fresh = entries.filter((e) => !ctx.outstanding.has(deliveryId(info.stream, e.id)));
      const counts = await this.counts(
        info,
        fresh.map((e) => e.id),
      );
      got.push(...(await this.toDeliveries(info, fresh, counts)));
    }
    if (open === 0) this.recovering = false;
    return got;
  }

  /**
   * Claiming is opportunistic: when it fails (a command connection being replaced after a
   * timeout) new entries are still read, and the sweep is tried again at its next turn.
   */
  private async sweepOrSkip(max: number): Promise<StreamsDelivery[]> {
    try {
      return await this.sweep(max);
    } catch (error) {
      if (this.deps.groups.noted(error)) throw error;
      this.nextSweepAt = Date.now() + this.deps.ctx.opts.claimEveryMs;
      this.deps.sweepFailed(error);
      return [];
    }
  }

  private async sweep(max: number): Promise<StreamsDelivery[]> {
    const { ctx, commands } = this.deps;
    const { opts } = ctx;
    const got: StreamsDelivery[] = [];
    let wrapped = true;
    for (const info of ctx.streams) {
      const budget = Math.min(max, opts.claimCount - this.claimedThisSweep) - got.length;
      if (budget <= 0) {
        wrapped = false;
        break;
      }
      const cursor = this.claimCursor.get(info.stream) ?? '0-0';
      const reply = await commands.xautoclaim(
        info.stream,
        opts.keys.group,
        opts.consumerName,
        opts.claimIdleMs,
        cursor,
        budget,
      );
      const claimed = parseXAutoClaim(reply);
      this.claimCursor.set(info.stream, claimed.next);
      if (claimed.next !== '0-0') wrapped = false;
      const now = Date.now();
      // An entry of ours that the host still holds went idle only because renewals failed: the
      // claim has renewed it; handing it out twice would run it twice here.
      const entries = claimed.entries.filter((e) => {
        const touched = ctx.outstanding.get(deliveryId(info.stream, e.id));
        return touched === undefined || now - touched >= opts.claimIdleMs;
      });
      ctx.counters.claims += entries.length;
      ctx.counters.claimedDeleted += claimed.deleted.length;
      this.claimedThisSweep += entries.length + claimed.deleted.length;
      const counts = await this.counts(
        info,
        entries.map((e) => e.id),
      );
      got.push(...(await this.toDeliveries(info, entries, counts)));
      // Deleted while pending: the server already dropped them from the PEL. The host acks them
      // (a no-op) and the reconciler re-dispatches their jobs from the database.
      const deleted = claimed.deleted.map((id) => ({ id, fields: null }));
      got.push(...(await this.toDeliveries(info, deleted, new Map())));
    }
    if (wrapped || this.claimedThisSweep >= opts.claimCount) {
      this.nextSweepAt = Date.now() + opts.claimEveryMs;
      this.claimedThisSweep = 0;
    }
    return got;
  }

  /**
   * One server: every stream, the configured block time. A cluster serves one slot per blocking
   * read, so the reads take the slots in turn, each blocking at most `CLUSTER_SLOT_BLOCK_MS` when
   * there are several: an entry of another slot waits at most that long (the non-blocking read
   * before each block covers every slot).
   */
  private blockTarget(): BlockTarget {
    const { ctx } = this.deps;
    const { opts } = ctx;
    if (!opts.connections.singleSlotCommands)
      return { streams: ctx.streams, blockMs: opts.blockMs };
    this.slots ??= groupBySlot(ctx.streams, (s) => s.stream).map((ix) =>
      ix.map((i) => ctx.streams[i] as StreamInfo),
    );
    const streams = this.slots[this.blockTurn++ % this.slots.length] ?? ctx.streams;
    const blockMs =
      this.slots.length > 1 ? Math.min(opts.blockMs, CLUSTER_SLOT_BLOCK_MS) : opts.blockMs;
    return { streams, blockMs };
  }

  private async readNew(max: number, signal: AbortSignal | undefined): Promise<StreamsDelivery[]> {
    const { ctx, blocking, commands } = this.deps;
    const got: StreamsDelivery[] = [];
    const order = bandOrder(++this.newReads, ctx.opts.lowBandEvery);
    let read = await readFirstBand(ctx, commands, order, max);
    // Every band empty: wait for the next entry of any band (the next read orders them again).
    if (read.length === 0)
      read = await readNewEntries(ctx, blocking, max, signal, this.blockTarget());
    for (const { stream, entries } of read) {
      const info = ctx.byStream.get(stream);
      // `>`: entries no consumer was handed before (the only deliveries that may start from the
      // pointer's snapshot; own pending and claims are redeliveries and read the row).
      if (info) got.push(...(await this.toDeliveries(info, entries, new Map(), true)));
    }
    return got;
  }
}

/** Longest block of one slot's read when a cluster worker serves several slots. */
export const CLUSTER_SLOT_BLOCK_MS = 250;

/** Orders stream ids (`ms-seq`) numerically. */
export function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}
