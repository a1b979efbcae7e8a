// The shared limits on PostgreSQL. A slot: one transaction that first takes the key's advisory
// lock, so the count it reads next already sees every slot committed before it (no two holders
// both see room). A token: one upsert (concurrent takers serialise on the bucket's row).
// Statements: repos/limit-sql.ts.

import type pg from 'pg';
import { TAKE_ARGS, takeTokenSql, wakeWaitersSql } from '../../repos/limit-sql.js';
import type { SlotArgs, TokenArgs, WakeArgs } from '../storage-dialect.js';
import { pgJsonText } from './postgres-sql.js';

const DROP_LAPSED = `delete from limit_slots where key = $1 and expires_at <= $2`;
const ACQUIRE = `insert into limit_slots (key, holder, expires_at) select $1, $2, $3::float8
   where (select count(*) from limit_slots where key = $1) < $4
   on conflict (key, holder) do update set expires_at = excluded.expires_at`;
const TAKE = takeTokenSql(
  (n) =>
    n === 'key' ? '$1' : `$${TAKE_ARGS.indexOf(n as (typeof TAKE_ARGS)[number]) + 1}::float8`,
  'least',
  'greatest',
);

// Each statement numbers only the parameters it uses (PostgreSQL types every one from its use).
const RELEASE_ARGS = ['key', 'holder', 'now'] as const;
const WAKE_ONLY = ['key', 'reason', 'name', 'max', 'at'] as const;
const WAKE_TYPES: Record<string, string> = { max: '::int', now: '::float8' };
const numbered = (names: readonly string[]) => (n: string) =>
  `$${names.indexOf(n) + 1}${WAKE_TYPES[n] ?? ''}`;
const field = (f: string) => pgJsonText('waiting', f);
const [RELEASE] = wakeWaitersSql(numbered(RELEASE_ARGS), field, 'greatest', '');
const [, WAKE] = wakeWaitersSql(numbered(WAKE_ONLY), field, 'greatest', ' for update skip locked');

/** One transaction under the key's advisory lock (every slot step of the key serialises on it). */
async function underKeyLock<T>(
  pool: pg.Pool,
  key: string,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock(hashtext($1))', [`sluice-limit:${key}`]);
    const out = await fn(client);
    await client.query('commit');
    return out;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export function acquireSlotPg(pool: pg.Pool, a: SlotArgs): Promise<boolean> {
  return underKeyLock(pool, a.key, async (client) => {
    await client.query(DROP_LAPSED, [a.key, a.now]);
    const res = await client.query(ACQUIRE, [a.key, a.holder, a.exp, a.max]);
    return (res.rowCount ?? 0) > 0;
  });
}

/**
 * Under the key's lock, like a slot's acquisition: a hold stored before this wake's count is seen
 * by it, and a wake that ran first freed the slot the holder's own re-check then counts.
 */
export function wakeWaitersPg(pool: pg.Pool, a: WakeArgs): Promise<number> {
  return underKeyLock(pool, a.key, async (client) => {
    const release = RELEASE_ARGS.map((n) => a[n]);
    await client.query({ name: 'sluice_release_slot_1', text: RELEASE!, values: release });
    const values = WAKE_ONLY.map((n) => a[n]);
    const res = await client.query({ name: 'sluice_wake_waiters_1', text: WAKE!, values });
    return res.rowCount ?? 0;
  });
}

export async function takeTokenPg(pool: pg.Pool, a: TokenArgs): Promise<boolean> {
  const values = TAKE_ARGS.map((n) => a[n]);
  const res = await pool.query({ name: 'sluice_take_token_1', text: TAKE, values });
  return (res.rowCount ?? 0) > 0;
}
