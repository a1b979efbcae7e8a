// Renew, ack, release and dead-letter, each one owner-checked Lua call per stream, pipelined in
// one round trip. A consumer that lost its entry to another (it was paused past the idle time)
// neither takes it back nor finishes it under the new owner. When the server lost its state
// (NOGROUP) the scripts find the entry pending nowhere: a renewal carries on under the database
// lease (still the fence), an ack has nothing to do, a requeue or dead letter is still written,
// and the next read recreates the group.

import { encodePointer, withoutSnapshot, type RenewOutcome } from '@sluice/contracts';
import { type StreamEntry } from '../replies.js';
import { byStream, type StreamInfo, type StreamsContext } from './context.js';
import type { GroupKeeper } from './groups.js';
import type { StreamsReader } from './reader.js';
import { ACK_OWNED, DEAD_LETTER_OWNED, REQUEUE_OWNED } from './scripts.js';
import type { ScriptCall, ScriptReply, StreamsClient, StreamsDelivery } from './types.js';

export class StreamsFinisher {
  constructor(
    private readonly ctx: StreamsContext,
    private readonly commands: StreamsClient,
    private readonly groups: GroupKeeper,
    private readonly reader: StreamsReader,
  ) {}

  private get head(): string[] {
    return [this.ctx.opts.keys.group, this.ctx.opts.consumerName];
  }

  /** Runs the calls; NOGROUP replies are noted and come back as `undefined`, others throw. */
  private async run(calls: readonly ScriptCall[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const replies: ScriptReply[] = await this.commands.runScripts(calls);
    return replies.map((r) => {
      if (r.ok) return r.value;
      if (this.groups.noted(r.error)) return undefined;
      throw r.error;
    });
  }

  private forget(deliveries: readonly StreamsDelivery[]): void {
    for (const d of deliveries) this.ctx.outstanding.delete(d.id);
  }

  async renew(held: readonly StreamsDelivery[]): Promise<RenewOutcome[]> {
    // Buffered entries are this consumer's too: keep them from going idle while they wait.
    const all = [...held, ...this.reader.buffered.filter((b) => !held.some((h) => h.id === b.id))];
    if (all.length === 0) return [];
    const groups = [...byStream(all)];
    const replies = await this.run(
      groups.map(([stream, ds]) => ({
        script: this.ctx.opts.renewScript,
        keys: [stream],
        args: [...this.head, ...ds.map((d) => d.entryId)],
      })),
    );
    const outcome = new Map<string, RenewOutcome>();
    const now = Date.now();
    groups.forEach(([, ds], i) => {
      const codes = replies[i];
      ds.forEach((d, k) => {
        // 2 = pending nowhere (the server lost it): nobody else can claim it, and the database
        // lease still fences the attempt, so it carries on.
        const code = Array.isArray(codes) ? Number(codes[k]) : 2;
        outcome.set(d.id, code === 0 ? 'lost' : 'renewed');
      });
    });
    const lost = new Set<string>();
    for (const d of all) {
      if (outcome.get(d.id) === 'lost') {
        lost.add(d.id);
        this.ctx.outstanding.delete(d.id);
        this.ctx.counters.renewalsLost++;
      } else if (this.ctx.outstanding.has(d.id)) {
        this.ctx.outstanding.set(d.id, now);
      }
    }
    if (lost.size > 0) this.reader.dropBuffered(lost);
    return held.map((d) => outcome.get(d.id) ?? 'renewed');
  }

  async ack(deliveries: readonly StreamsDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    this.forget(deliveries);
    await this.run(
      [...byStream(deliveries)].map(([stream, ds]) => ({
        script: ACK_OWNED,
        keys: [stream],
        args: [...this.head, ...ds.map((d) => d.entryId)],
      })),
    );
  }

  /**
   * `delayMs > 0`: only acknowledged; the host has stored an outbox row due then, which the
   * gateway's reconciler dispatches. `0`: back at the end of the stream now (drain).
   */
  async release(deliveries: readonly StreamsDelivery[], delayMs = 0): Promise<void> {
    if (delayMs > 0) return this.ack(deliveries);
    const withPointer = deliveries.filter((d) => d.pointer);
    const without = deliveries.filter((d) => !d.pointer);
    this.forget(deliveries);
    await Promise.all([
      this.ack(without),
      this.run(
        withPointer.map((d) => ({
          script: REQUEUE_OWNED,
          keys: [d.stream],
          args: [
            ...this.head,
            d.entryId,
            // Put back without the snapshot: the next delivery reads the row (the job may move).
            ...encodePointer(withoutSnapshot(d.pointer as NonNullable<typeof d.pointer>)),
          ],
        })),
      ),
    ]);
  }

  async deadLetter(d: StreamsDelivery, reason: string): Promise<void> {
    const info = this.ctx.byStream.get(d.stream);
    if (!d.pointer || !info) return this.ack([d]);
    this.forget([d]);
    await this.moveToDeadLetters(
      info,
      d.entryId,
      encodePointer(withoutSnapshot(d.pointer)),
      reason,
      d.transportDeliveries,
    );
  }

  /** An entry whose fields are not a pointer: kept for inspection, never handed to the host. */
  async malformed(info: StreamInfo, entry: StreamEntry): Promise<void> {
    this.ctx.counters.malformed++;
    const fields = entry.fields ?? [];
    await this.moveToDeadLetters(
      info,
      entry.id,
      fields.length % 2 === 0 ? fields : [],
      'BAD_POINTER',
      0,
    );
  }

  private async moveToDeadLetters(
    info: StreamInfo,
    entryId: string,
    fields: readonly string[],
    reason: string,
    deliveries: number,
  ): Promise<void> {
    const [moved] = await this.run([
      {
        script: DEAD_LETTER_OWNED,
        keys: [info.stream, info.deadLetters],
        args: [
          ...this.head,
          entryId,
          this.ctx.opts.deadLettersMaxLen,
          ...fields,
          'reason',
          reason,
          'at',
          new Date().toISOString(),
          'entry',
          entryId,
          'consumer',
          this.ctx.opts.consumerName,
          'deliveries',
          deliveries,
        ],
      },
    ]);
    if (Number(moved) === 1) this.ctx.counters.deadLetters++;
  }
}
