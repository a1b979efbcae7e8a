// Limits shared by every replica, kept in the job database (migration 0010): a semaphore per key
// (at most `max` slots held at once; a slot lapses at its expiry, so a crashed holder frees it by
// itself) and a token bucket per key (`perSecond` refill, `burst` capacity). Both are single
// atomic steps on every dialect (`StorageDialect.acquireSlot`/`takeToken`): SQLite runs one
// IMMEDIATE transaction (one writer), D1 one batch (one transaction), PostgreSQL one transaction
// that first takes the key's advisory lock, so the count it reads next already sees every slot
// committed before it (no two holders both see room). Statements: limit-sql.ts.
// The bucket is one upsert whose update only applies while a token is left: concurrent takers
// serialise on the row, and the loser re-reads the row it waited for.
//
// Keys name what is limited: `provider:<name>`, `tenant:<id>`, `kind:<kind>` (with a suffix for
// the bucket of starts: `…:starts`). Accuracy: at most `max` slots are held at any instant; over
// any window of W seconds at most `burst + perSecond × W` tokens are taken.

import type { SluiceDatabase } from '../database.js';
import { fromJson } from '../json.js';

export interface SlotRequest {
  key: string;
  /** Unique per acquisition (e.g. attempt id + call name + a counter). */
  holder: string;
  max: number;
  /** The slot lapses this long after it was taken unless released first. */
  ttlMs: number;
  now?: number | undefined;
}

export interface TokenRequest {
  key: string;
  perSecond: number;
  /** Bucket capacity (default: max(1, perSecond)). */
  burst?: number | undefined;
  now?: number | undefined;
}

/** Takes one slot of `key` if fewer than `max` are held; true when taken. */
export async function acquireSlot(database: SluiceDatabase, r: SlotRequest): Promise<boolean> {
  const now = r.now ?? Date.now();
  return database.dialect.acquireSlot({
    key: r.key,
    holder: r.holder,
    max: r.max,
    now,
    exp: now + r.ttlMs,
  });
}

/**
 * A key's waiting list: `reason` and `name` are what a held job's `waiting` names (the start
 * gate's key `<reason>:<name>`), `max` the key's `maxRunning`.
 */
export interface WaitingList {
  key: string;
  reason: string;
  name: string;
  max: number;
}

/**
 * Gives `holder`'s slot of the list's key back (none: gives nothing back) and makes due now as
 * many of the key's waiters (priority, then age) as it has free slots, less waiters woken and not
 * yet claimed, in one atomic step; then wakes idle embedded claimers (work-signal.ts) when any
 * job was made due. How many were. A lost wake (a crash right after the release) costs the
 * waiters their hold's backstop delay, never their start.
 */
export async function wakeWaiters(
  database: SluiceDatabase,
  list: WaitingList,
  holder: string | null = null,
  now = Date.now(),
): Promise<number> {
  const woken = await database.dialect.wakeWaiters({
    ...list,
    holder,
    now,
    at: new Date(now).toISOString(),
  });
  if (woken > 0) await database.dialect.notifyWork();
  return woken;
}

/** Gives a slot back (a lapsed or unknown one is a no-op); wakes nobody (`wakeWaiters` does). */
export async function releaseSlot(
  database: SluiceDatabase,
  key: string,
  holder: string,
): Promise<void> {
  await database.db
    .deleteFrom('limit_slots' as never)
    .where('key' as never, '=', key as never)
    .where('holder' as never, '=', holder as never)
    .execute();
}

/**
 * Pushes the expiry of slots still held by `holders` (any key) to `expiresAt`: a long attempt
 * keeps its slot past the first ttl. A lapsed-and-deleted slot is not brought back.
 */
export async function renewSlots(
  database: SluiceDatabase,
  holders: readonly string[],
  expiresAt: number,
): Promise<void> {
  if (holders.length === 0) return;
  await database.db
    .updateTable('limit_slots' as never)
    .set({ expires_at: expiresAt } as never)
    .where('holder' as never, 'in', holders as never)
    .execute();
}

/**
 * The start limits' keys (`kind:`, `tenant:`, `key:`) with a slot that lapsed with its holder (a
 * crashed worker, an attempt whose lease expired and was never reclaimed): nobody released it, so
 * nobody woke the key's waiting list. Only read: `wakeWaiters` drops the lapsed slots of each
 * key under the key's lock (a delete here would take the same rows in another order: deadlock).
 */
export async function lapsedSlotKeys(database: SluiceDatabase, now: number): Promise<string[]> {
  const rows = await database.db
    .selectFrom('limit_slots' as never)
    .select('key' as never)
    .distinct()
    .where('expires_at' as never, '<=', now as never)
    .where((eb) =>
      eb.or([
        eb('key' as never, 'like', 'kind:%' as never),
        eb('key' as never, 'like', 'tenant:%' as never),
        eb('key' as never, 'like', 'key:%' as never),
      ]),
    )
    .execute();
  return (rows as { key: string }[]).map((r) => r.key);
}

/** Slots of `key` held now (for tests and metrics). */
export async function slotsHeld(database: SluiceDatabase, key: string, now = Date.now()) {
  const row = await database.db
    .selectFrom('limit_slots' as never)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('key' as never, '=', key as never)
    .where('expires_at' as never, '>', now as never)
    .executeTakeFirst();
  return Number((row as { n?: number } | undefined)?.n ?? 0);
}

/** Takes one token of `key`'s bucket if one is left; true when taken. */
export async function takeToken(database: SluiceDatabase, r: TokenRequest): Promise<boolean> {
  const now = r.now ?? Date.now();
  const burst = r.burst ?? Math.max(1, r.perSecond);
  return database.dialect.takeToken({ key: r.key, burst, now, rate: r.perSecond });
}

/**
 * Queued jobs a limit holds, by limit (`provider:<name>`, or `<scope>:<kind>` — no tenant or key
 * ids, so the label stays bounded), read from the rows' `waiting` (at most `cap` rows looked at).
 */
export async function countWaitingJobs(
  db: SluiceDatabase['db'],
  cap = 50_000,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('jobs')
    .select(['kind', 'waiting'])
    .where('state', '=', 'queued')
    .where('waiting', 'is not', null)
    .limit(cap)
    .execute();
  const out = new Map<string, number>();
  for (const r of rows) {
    const w = fromJson<{ reason?: string; name?: string }>(r.waiting);
    if (!w?.reason) continue;
    const limit = w.reason === 'provider' ? `provider:${w.name}` : `${w.reason}:${r.kind}`;
    out.set(limit, (out.get(limit) ?? 0) + 1);
  }
  return out;
}
