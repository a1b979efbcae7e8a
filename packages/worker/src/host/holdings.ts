// What this worker holds, and how much more it may ask for: the one owner of the admission and
// execution counts. A delivery is `incoming` from the read that asks for it until its batch is
// admitted, then its attempt waits in order for an execution slot, runs, and is `finishing` while
// its outcome is stored. The read loop asks `room()` before each read, the runner takes slots,
// renewal and the drain read the held attempts: all through this object, so no count lives in
// two places and every change wakes whoever waits on one.

import type { Delivery } from '@sluice/contracts';
import { abortAttempt, type Attempt, type AttemptJob } from '../attempt/attempt.js';
import type { WorkerCounters } from '../metrics.js';
import { Wake } from './wake.js';

export interface HoldingsOptions {
  /** Attempts executing at once. */
  concurrency: number;
  /** Deliveries asked for per read at most. */
  readBatch: number;
  /** Deliveries held beyond the executing ones, waiting for a slot. */
  prefetch: number;
  /** Aborted when the host stops: the read loop's wait ends then (the drain's does not). */
  stopped: AbortSignal;
  counters: WorkerCounters;
}

/** The jobs this process runs, as admission asks about them (a reclaim of one fences it out). */
export interface LocalJobs {
  isLocal(jobId: string): boolean;
  /** A reclaim of a job this process still runs: the old attempt writes nothing more. */
  fenceLocal(jobId: string): void;
}

export class Holdings<D extends Delivery = Delivery> implements LocalJobs {
  /** Every attempt held, by delivery id: waiting, running or finishing. */
  private readonly byDelivery = new Map<string, Attempt<D>>();
  private readonly byJob = new Map<string, Attempt<D>>();
  private readonly waiting: Attempt<D>[] = [];
  private readonly executing = new Set<Attempt<D>>();
  /** Deliveries asked for or being admitted: counted against the prefetch before they run. */
  private incoming = 0;
  private finishing = 0;
  /** Holdings changed: the read loop may read again (ended at once by a stop). */
  private readonly roomWake: Wake;
  /** Holdings changed: what the drain waits on (never ended by the stop, unlike the above). */
  private readonly changeWake = new Wake(new AbortController().signal);

  constructor(private readonly opts: HoldingsOptions) {
    this.roomWake = new Wake(opts.stopped);
  }

  /** Deliveries that may be asked for now: executing + waiting + incoming stay within bounds. */
  room(): number {
    const { concurrency, readBatch, prefetch } = this.opts;
    // Outcomes being stored are bounded too: a slow database must slow the reads down.
    if (this.finishing >= 4 * concurrency + readBatch) return 0;
    const held = this.executing.size + this.waiting.length + this.incoming;
    return Math.min(readBatch, concurrency + prefetch - held);
  }

  /** A read asks for `n` deliveries: they count against the room until admitted or not coming. */
  asking(n: number): void {
    this.incoming += n;
  }

  /** Deliveries asked for that will not be admitted (not returned, given back, or failed). */
  notComing(n: number): void {
    this.incoming -= n;
    this.notify();
  }

  /** An admitted batch: its attempts leave `incoming` and wait for a slot, in order. */
  admit(attempts: readonly Attempt<D>[]): void {
    for (const a of attempts) {
      this.byDelivery.set(a.delivery.id, a);
      this.byJob.set(a.job.id, a);
      this.waiting.push(a);
    }
    this.incoming -= attempts.length;
  }

  /** The next attempt in line when an execution slot is free (the runner starts or settles it). */
  nextWaiting(): Attempt<D> | undefined {
    if (this.executing.size >= this.opts.concurrency) return undefined;
    return this.waiting.shift();
  }

  /** Its handler starts: it holds a slot. */
  startRunning(a: Attempt<D>): void {
    a.phase = 'running';
    this.executing.add(a);
  }

  /** Its handler is done (or never ran): the slot is free again. */
  stopRunning(a: Attempt<D>): void {
    this.executing.delete(a);
  }

  /** Its outcome is being stored. */
  startFinishing(a: Attempt<D>): void {
    a.phase = 'finishing';
    this.finishing++;
    this.notify();
  }

  /** Its outcome is stored (or left to lease expiry): the delivery is no longer held. */
  finished(a: Attempt<D>): void {
    this.finishing--;
    this.forget(a);
    this.notify();
  }

  /** Attempts still waiting for a slot, taken out unstarted (the drain gives them back). */
  takeWaiting(): Attempt<D>[] {
    const taken = this.waiting.splice(0);
    for (const a of taken) this.forget(a);
    return taken;
  }

  /** Attempts whose handler runs now. */
  get running(): ReadonlySet<Attempt<D>> {
    return this.executing;
  }

  get heldCount(): number {
    return this.byDelivery.size;
  }

  /** Every attempt held: waiting, running or finishing. */
  held(): Attempt<D>[] {
    return [...this.byDelivery.values()];
  }

  /** The job a held attempt runs (for log lines). */
  jobOf(jobId: string): AttemptJob | undefined {
    return this.byJob.get(jobId)?.job;
  }

  isLocal(jobId: string): boolean {
    return this.byJob.has(jobId);
  }

  fenceLocal(jobId: string): void {
    const a = this.byJob.get(jobId);
    if (a) this.lose(a);
  }

  /** The attempt lost its job (fenced, reclaimed): it writes nothing more. */
  lose(a: Attempt<D>): void {
    // A cancel already known stands (its delivery is only acknowledged); anything else is
    // overridden: an attempt that lost its job writes nothing more.
    if (a.cause === 'lease_lost' || a.cause === 'cancelled') return;
    this.opts.counters.lostLeases++;
    a.cause = undefined;
    abortAttempt(a, 'lease_lost');
  }

  /** Until holdings change (or at once after a stop): the read loop waits for room here. */
  waitForRoom(): Promise<void> {
    return this.roomWake.wait();
  }

  /** Until holdings change, stopped or not: the drain waits for attempts to settle here. */
  waitForChange(): Promise<void> {
    return this.changeWake.wait();
  }

  private forget(a: Attempt<D>): void {
    this.byDelivery.delete(a.delivery.id);
    if (this.byJob.get(a.job.id) === a) this.byJob.delete(a.job.id);
  }

  private notify(): void {
    this.roomWake.notify();
    this.changeWake.notify();
  }
}
