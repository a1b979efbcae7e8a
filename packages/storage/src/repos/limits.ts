// Limits shared by every replica, kept in the job database (migration 0010): a semaphore per key
// (at most `max` slots held at once; a slot lapses at its expiry, so a crashed holder frees it by
// itself) and a token bucket per key (`perSecond` refill, `burst` capacity). Both are single
// atomic steps on every dialect: SQLite runs one IMMEDIATE transaction (one writer), D1 one batch
// (one transaction), PostgreSQL one transaction that first takes the key's advisory lock, so the
// count it reads next already sees every slot committed before it (no two holders both see room).
// The bucket is one upsert whose update only applies while a token is left: concurrent takers
// serialise on the row, and the loser re-reads the row it waited for.
//
// Keys name what is limited: `provider:<name>`, `tenant:<id>`, `kind:<kind>` (with a suffix for
// the bucket of starts: `…:starts`). Accuracy: at most `max` slots are held at any instant; over
// any window of W seconds at most `burst + perSecond × W` tokens are taken.

import type { SluiceDatabase } from '../database.js';
import { fromJson } from '../json.js';
import { immediately, prepared } from '../write-model/native-sqlite.js';

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

const sqliteAcquire = (p: (n: string) => string) => [
  `delete from limit_slots where key = ${p('key')} and expires_at <= ${p('now')}`,
  `insert into limit_slots (key, holder, expires_at)
   select ${p('key')}, ${p('holder')}, ${p('exp')}
   where (select count(*) from limit_slots where key = ${p('key')}) < ${p('max')}
   on conflict (key, holder) do update set expires_at = excluded.expires_at`,
];
const SQLITE_ACQUIRE = sqliteAcquire((n) => `@${n}`);
const D1_ARGS = ['key', 'now', 'holder', 'exp', 'max'];
const D1_ACQUIRE = sqliteAcquire((n) => `?${D1_ARGS.indexOf(n) + 1}`);
const PG_ACQUIRE = [
  `delete from limit_slots where key = $1 and expires_at <= $2`,
  `insert into limit_slots (key, holder, expires_at) select $1, $2, $3::float8
   where (select count(*) from limit_slots where key = $1) < $4
   on conflict (key, holder) do update set expires_at = excluded.expires_at`,
];

/** Takes one slot of `key` if fewer than `max` are held; true when taken. */
export async function acquireSlot(database: SluiceDatabase, r: SlotRequest): Promise<boolean> {
  const now = r.now ?? Date.now();
  const args = { key: r.key, now, holder: r.holder, exp: now + r.ttlMs, max: r.max };
  const native = database.native;
  if (native.dialect === 'postgres') {
    const client = await native.pool.connect();
    try {
      await client.query('begin');
      await client.query('select pg_advisory_xact_lock(hashtext($1))', [`sluice-limit:${r.key}`]);
      await client.query(PG_ACQUIRE[0] as string, [r.key, now]);
      const res = await client.query(PG_ACQUIRE[1] as string, [r.key, r.holder, args.exp, r.max]);
      await client.query('commit');
      return (res.rowCount ?? 0) > 0;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
  if (native.dialect === 'd1') {
    const values = D1_ARGS.map((n) => args[n as keyof typeof args]);
    const [, insert] = await native.d1.batch(
      D1_ACQUIRE.map((q, i) =>
        native.d1.prepare(q).bind(...(i === 0 ? values.slice(0, 2) : values)),
      ),
    );
    return Number(insert?.meta.changes ?? 0) > 0;
  }
  const handle = native.handle;
  return immediately(database, handle, () => {
    prepared(handle, SQLITE_ACQUIRE[0] as string).run({ key: r.key, now });
    return prepared(handle, SQLITE_ACQUIRE[1] as string).run(args).changes > 0;
  });
}

/** Gives a slot back (a lapsed or unknown one is a no-op). */
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

const bucket = (p: (n: string) => string, least: string, greatest: string) => {
  const refill = `${least}(${p('burst')}, limit_buckets.tokens + ${greatest}(0, ${p('now')} - limit_buckets.at_ms) * ${p('rate')} / 1000.0)`;
  return `insert into limit_buckets (key, tokens, at_ms) values (${p('key')}, ${p('burst')} - 1, ${p('now')})
    on conflict (key) do update set tokens = ${refill} - 1,
      at_ms = ${greatest}(limit_buckets.at_ms, ${p('now')})
    where ${refill} >= 1`;
};
const SQLITE_TAKE = bucket((n) => `@${n}`, 'min', 'max');
const TAKE_ARGS = ['key', 'burst', 'now', 'rate'];
const D1_TAKE = bucket((n) => `?${TAKE_ARGS.indexOf(n) + 1}`, 'min', 'max');
const PG_TAKE = bucket(
  (n) => (n === 'key' ? '$1' : `$${TAKE_ARGS.indexOf(n) + 1}::float8`),
  'least',
  'greatest',
);

/** Takes one token of `key`'s bucket if one is left; true when taken. */
export async function takeToken(database: SluiceDatabase, r: TokenRequest): Promise<boolean> {
  const now = r.now ?? Date.now();
  const args = { key: r.key, burst: r.burst ?? Math.max(1, r.perSecond), now, rate: r.perSecond };
  const values = TAKE_ARGS.map((n) => args[n as keyof typeof args]);
  const native = database.native;
  if (native.dialect === 'postgres') {
    const res = await native.pool.query({ name: 'sluice_take_token_1', text: PG_TAKE, values });
    return (res.rowCount ?? 0) > 0;
  }
  if (native.dialect === 'd1') {
    const res = await native.d1
      .prepare(D1_TAKE)
      .bind(...values)
      .run();
    return Number(res.meta.changes ?? 0) > 0;
  }
  const handle = native.handle;
  return immediately(database, handle, () => prepared(handle, SQLITE_TAKE).run(args).changes > 0);
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
