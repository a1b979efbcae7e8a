// The fair feeder of bounded-depth dispatch: jobs held in the database because their stream was
// full are handed out round-robin across tenants as workers make room. One replica at a time
// feeds (a lock in the database); every `everyMs` it reads the room left in the streams of held
// jobs, and only when some stream has room does it read the held jobs in fair order
// (`heldJobsFair`: each tenant's first, then each tenant's second, …) and offer each stream the
// first ones that fit. A job offered and added loses its held mark; one that did not fit (another
// replica's dispatch took the room) stays held. A crash between the XADD and the unmark only
// dispatches that job once more (harmless: the worker reloads the row).
//
// The bound this gives (docs/scheduling.md): a tenant's new job waits behind at most `maxUndelivered`
// entries already in its stream, plus one feed period, plus one job of every other tenant with
// held jobs in that stream ahead of it — whatever the size of another tenant's backlog.

import { isTerminalState, randomToken } from '@sluice/contracts';
import { priorityBand } from '../keys.js';
import {
  acquireLock,
  heldJobsFair,
  releaseHeld,
  releaseLock,
  type HeldJob,
  type SluiceDatabase,
} from '@sluice/storage';
import { roomIn, type RoomClient } from './bounded-add.js';
import type { StreamsDispatcher } from './create-streams-dispatcher.js';

const FEEDER_LOCK = 'streams-fair-feeder';

export interface FairFeederOptions {
  database: SluiceDatabase;
  dispatcher: StreamsDispatcher;
  redis: RoomClient;
  /** Feed period (default 25 ms). */
  everyMs?: number;
  /** Held jobs read per pass at most (default 4 × maxUndelivered). */
  pageSize?: number;
  onError?: (error: unknown) => void;
}

export interface FairFeeder {
  readonly stats: { passes: number; fed: number; released: number; errors: number };
  /** One pass now (tests); the number of jobs added to streams. */
  feed(): Promise<number>;
  start(): void;
  close(): Promise<void>;
}

export function createFairFeeder(opts: FairFeederOptions): FairFeeder {
  const { database, dispatcher, redis } = opts;
  const { db } = database;
  const bound = dispatcher.maxUndelivered;
  if (bound === undefined) throw new Error('the fair feeder needs a bounded dispatcher');
  const everyMs = opts.everyMs ?? 25;
  const pageSize = opts.pageSize ?? 4 * bound;
  const lockTtlMs = Math.max(5000, 20 * everyMs);
  const owner = `feeder-${randomToken().slice(0, 12)}`;
  const stats = { passes: 0, fed: 0, released: 0, errors: 0 };
  const keys = dispatcher.keys;
  const streamOf = (j: HeldJob) => keys.jobs(j.kind, j.version, priorityBand(j.priority));
  let lockedUntil = 0;
  // Streams whose held jobs the last read saw: while all of them are full, no read is needed.
  let watched: string[] = [];
  let readAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let closed = false;

  async function holdLock(now: number): Promise<boolean> {
    if (now < lockedUntil - lockTtlMs / 2) return true;
    const ok = await acquireLock(db, FEEDER_LOCK, owner, lockTtlMs, now);
    lockedUntil = ok ? now + lockTtlMs : 0;
    return ok;
  }

  async function pass(): Promise<number> {
    const now = Date.now();
    if (!(await holdLock(now))) return 0;
    stats.passes++;
    // Cheap check first: a full stream needs no read of the database (re-read once a second
    // anyway, for held jobs of streams not seen yet).
    if (watched.length > 0 && now - readAt < 1000) {
      const rooms = await roomIn(redis, watched, keys.group, bound as number);
      if (rooms.every((r) => r === 0)) return 0;
    }
    readAt = now;
    const held = await heldJobsFair(db, bound as number, pageSize);
    const finished = held.filter((j) => isTerminalState(j.state)).map((j) => j.id);
    const live = held.filter((j) => !isTerminalState(j.state));
    if (finished.length > 0) {
      // Ended while held (cancelled): nothing to dispatch.
      await releaseHeld(db, finished);
      stats.released += finished.length;
    }
    watched = [...new Set(live.map(streamOf))];
    if (watched.length === 0) return 0;
    const rooms = await roomIn(redis, watched, keys.group, bound as number);
    const room = new Map(watched.map((s, i) => [s, rooms[i] ?? 0]));
    // In fair order: each stream takes its first jobs that fit.
    const offered = live.filter((j) => {
      const s = streamOf(j);
      const left = room.get(s) ?? 0;
      if (left <= 0) return false;
      room.set(s, left - 1);
      return true;
    });
    if (offered.length === 0) return 0;
    const notAdded = new Set(
      await dispatcher.offer(
        offered.map((j) => ({
          jobId: j.id,
          kind: j.kind,
          version: j.version,
          tenantId: j.tenantId,
          priority: j.priority,
        })),
      ),
    );
    const added = offered.filter((j) => !notAdded.has(j.id)).map((j) => j.id);
    await releaseHeld(db, added);
    stats.fed += added.length;
    return added.length;
  }

  function feed(): Promise<number> {
    running ??= pass()
      .catch((error: unknown) => {
        stats.errors++;
        opts.onError?.(error);
        return 0;
      })
      .finally(() => (running = undefined));
    return running;
  }

  function schedule(delayMs: number): void {
    if (closed) return;
    // Straight on while jobs fit (a backlog drains at the workers' pace), else a period later.
    timer = setTimeout(() => void feed().then((n) => schedule(n > 0 ? 0 : everyMs)), delayMs);
    timer.unref();
  }

  return {
    stats,
    feed,
    start: () => {
      if (!timer && !closed) schedule(everyMs);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
      if (lockedUntil > 0) await releaseLock(db, FEEDER_LOCK, owner).catch(() => {});
    },
  };
}
