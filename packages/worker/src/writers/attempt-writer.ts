// Every database write of running attempts goes through one writer: lazy starts, progress and
// checkpoints, outcomes. Attempts that ask while a flush runs wait for the next one, and each
// flush is ONE storage `writeAttempts` call (one statement on PostgreSQL) for all of them: group
// commit. Several flushes may be in flight at once (a pool of connections), but never two writes
// of the same attempt, so an attempt's writes land in order; its outcome carries whatever it
// still had pending, events first. A write refused by its fence marks the attempt fenced: it no
// longer holds the job, and nothing of it landed.

import { SluiceError } from '@sluice/contracts';
import { writeAttempts, type SluiceDatabase, type StoredEvent } from '@sluice/storage';
import { isoIn, isoNow } from '@sluice/storage/d1';
import type { Attempt } from '../attempt/attempt.js';
import type { WorkerLogger } from '../logger.js';
import { applyWritten, buildWrite, type BuiltWrite, type FinishWrite } from './build-write.js';

export interface FinishedWrite {
  attempt: Attempt;
  finish: FinishWrite;
  applied: boolean;
}

/** What a flush reports, once its statement returned. */
export interface FlushListener {
  /** Writes refused by their fence (the host finds out whether the job was cancelled). */
  fenced(attempts: readonly Attempt[]): void;
  /** The events a flush committed (runtimes that carry events publish them). */
  stored(events: StoredEvent[]): void;
  /** The outcomes a flush stored or had refused: the host finishes their deliveries, grouped. */
  finished(finished: readonly FinishedWrite[]): void;
}

export interface AttemptWriterOptions {
  database: SluiceDatabase;
  logger: WorkerLogger;
  leaseMs: number;
  /** Written as the lease owner of running jobs. */
  owner: string;
  /** Flushes in flight at once (default 4 where writers run concurrently, else 1). */
  maxInFlight?: number | undefined;
  /** Attempts per flush at most (default 512). */
  maxBatch?: number | undefined;
  /** Pauses before retrying a flush that failed (then the waiters get the error). */
  retryDelaysMs?: readonly number[] | undefined;
  /** Who hears what each flush did (the host's delivery finisher). */
  listener: FlushListener;
  /** What a write holds (default `buildWrite`; a test seam). */
  build?: typeof buildWrite | undefined;
  /** Before each group write, with its attempts (default nothing; a test seam). */
  beforeWrite?: ((attempts: readonly Attempt[]) => Promise<void>) | undefined;
}

type Waiter = { resolve: () => void; reject: (error: unknown) => void };
type Request = { finish?: FinishWrite; waiters: Waiter[]; failures: number };

const leaseLost = () =>
  new SluiceError('LEASE_LOST', 'this attempt no longer holds the job: the write was refused');

export class AttemptWriter {
  private readonly waiting = new Map<Attempt, Request>();
  private readonly inFlight = new Set<Attempt>();
  private flushes = 0;
  private scheduled = false;
  private closed = false;
  private readonly maxInFlight: number;

  constructor(private readonly opts: AttemptWriterOptions) {
    // Several group writes in flight only help where the database runs writers concurrently.
    this.maxInFlight = opts.maxInFlight ?? (opts.database.capabilities.concurrentWriters ? 4 : 1);
  }

  /** Resolves once everything the attempt has pending now is stored (LEASE_LOST if fenced). */
  persist(attempt: Attempt): Promise<void> {
    if (attempt.fenced) return Promise.reject(leaseLost());
    return new Promise<void>((resolve, reject) => this.enqueue(attempt, { resolve, reject }));
  }

  /** Write-behind: stores what is pending without anyone waiting (a refusal fences the attempt). */
  schedule(attempt: Attempt): void {
    if (attempt.fenced || this.closed) return;
    this.enqueue(attempt, undefined);
  }

  /** Stores the attempt's outcome with everything still pending; the listener hears of it. */
  finish(attempt: Attempt, finish: FinishWrite): Promise<void> {
    return new Promise<void>((resolve, reject) =>
      this.enqueue(attempt, { resolve, reject }, finish),
    );
  }

  /** No more writes are started (the worker stopped); waiting ones are refused. */
  close(): void {
    this.closed = true;
    for (const [, req] of this.waiting)
      for (const w of req.waiters) w.reject(new SluiceError('UNAVAILABLE', 'the worker stopped'));
    this.waiting.clear();
  }

  private enqueue(attempt: Attempt, waiter: Waiter | undefined, finish?: FinishWrite): void {
    if (this.closed) {
      waiter?.reject(new SluiceError('UNAVAILABLE', 'the worker stopped'));
      return;
    }
    let req = this.waiting.get(attempt);
    if (!req) this.waiting.set(attempt, (req = { waiters: [], failures: 0 }));
    if (waiter) req.waiters.push(waiter);
    if (finish) req.finish = finish;
    this.kick();
  }

  private kick(): void {
    if (this.scheduled || this.flushes >= this.maxInFlight) return;
    for (const attempt of this.waiting.keys()) {
      if (this.inFlight.has(attempt)) continue;
      this.scheduled = true;
      // One macrotask turn: every attempt that asks now joins this flush.
      setImmediate(() => {
        this.scheduled = false;
        void this.flush();
      });
      return;
    }
  }

  private take(): [Attempt, Request][] {
    const max = this.opts.maxBatch ?? 512;
    const batch: [Attempt, Request][] = [];
    for (const [attempt, req] of this.waiting) {
      if (batch.length >= max) break;
      if (this.inFlight.has(attempt)) continue;
      batch.push([attempt, req]);
    }
    for (const [attempt] of batch) {
      this.waiting.delete(attempt);
      this.inFlight.add(attempt);
    }
    return batch;
  }

  private async flush(): Promise<void> {
    if (this.closed) return;
    const batch = this.take();
    if (batch.length === 0) return;
    this.flushes++;
    const build = this.opts.build ?? buildWrite;
    try {
      await this.opts.beforeWrite?.(batch.map(([a]) => a));
    } catch (error) {
      this.flushes--;
      for (const [attempt] of batch) this.inFlight.delete(attempt);
      this.failed(batch, error);
      return;
    }
    const now = Date.now();
    // Formatted once per flush, not per attempt (Date → ISO text showed in the profile).
    const ctx = {
      now,
      leaseMs: this.opts.leaseMs,
      owner: this.opts.owner,
      at: isoNow(now),
      leaseUntil: isoIn(this.opts.leaseMs, now),
    };
    const built: BuiltWrite[] = batch.map(([a, r]) => build(a, ctx, r.finish));
    try {
      const result = await writeAttempts(
        this.opts.database,
        built.map((b) => b.write),
        now,
      );
      this.settle(batch, built, result.applied);
      this.opts.listener.stored(result.events);
    } catch (error) {
      this.failed(batch, error);
    } finally {
      this.flushes--;
      for (const [attempt] of batch) this.inFlight.delete(attempt);
      this.kick();
    }
  }

  private settle(batch: [Attempt, Request][], built: BuiltWrite[], applied: boolean[]): void {
    const fenced: Attempt[] = [];
    const finished: FinishedWrite[] = [];
    batch.forEach(([attempt, req], i) => {
      const ok = applied[i] === true;
      if (ok) applyWritten(attempt, built[i] as BuiltWrite);
      else if (!attempt.fenced) {
        attempt.fenced = true;
        fenced.push(attempt);
      }
      if (req.finish) finished.push({ attempt, finish: req.finish, applied: ok });
      for (const w of req.waiters) {
        if (ok || req.finish) w.resolve();
        else w.reject(leaseLost());
      }
    });
    if (fenced.length > 0) this.opts.listener.fenced(fenced);
    if (finished.length > 0) this.opts.listener.finished(finished);
  }

  private failed(batch: [Attempt, Request][], error: unknown): void {
    const delays = this.opts.retryDelaysMs ?? [100, 500, 2000];
    const again: [Attempt, Request][] = [];
    for (const [attempt, req] of batch) {
      if (req.failures < delays.length && !this.closed) {
        again.push([attempt, req]);
        continue;
      }
      // Nothing of it is stored: an outcome left unwritten comes back through lease expiry.
      for (const w of req.waiters) w.reject(error);
    }
    this.opts.logger.warn('attempt write failed', {
      error,
      attempts: batch.length,
      retrying: again.length,
    });
    if (again.length === 0) return;
    const delay = delays[Math.min(...again.map(([, r]) => r.failures))] ?? 1000;
    const timer = setTimeout(() => {
      for (const [attempt, req] of again) {
        req.failures++;
        const newer = this.waiting.get(attempt);
        // Asked again meanwhile: one request carries both (the finish wins, waiters add up).
        if (newer) {
          newer.waiters.push(...req.waiters);
          newer.finish ??= req.finish;
          newer.failures = Math.max(newer.failures, req.failures);
        } else this.waiting.set(attempt, req);
      }
      this.kick();
    }, delay);
    timer.unref();
  }
}
