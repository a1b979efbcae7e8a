// The shared limits on PostgreSQL. A slot: one transaction that first takes the key's advisory
// lock, so the count it reads next already sees every slot committed before it (no two holders
// both see room). A token: one upsert (concurrent takers serialise on the bucket's row).
// Statements: repos/limit-sql.ts.

import type pg from 'pg';
import { TAKE_ARGS, takeTokenSql } from '../../repos/limit-sql.js';
import type { SlotArgs, TokenArgs } from '../storage-dialect.js';

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

export async function acquireSlotPg(pool: pg.Pool, a: SlotArgs): Promise<boolean> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock(hashtext($1))', [`sluice-limit:${a.key}`]);
    await client.query(DROP_LAPSED, [a.key, a.now]);
    const res = await client.query(ACQUIRE, [a.key, a.holder, a.exp, a.max]);
    await client.query('commit');
    return (res.rowCount ?? 0) > 0;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export async function takeTokenPg(pool: pg.Pool, a: TokenArgs): Promise<boolean> {
  const values = TAKE_ARGS.map((n) => a[n]);
  const res = await pool.query({ name: 'sluice_take_token_1', text: TAKE, values });
  return (res.rowCount ?? 0) > 0;
}
