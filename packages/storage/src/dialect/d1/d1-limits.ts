// The shared limits on D1: a slot in ONE batch (drop the lapsed slots, then the conditional
// insert: a batch is one transaction), a token in one statement. Statements: repos/limit-sql.ts.

import {
  acquireSlotSql,
  TAKE_ARGS,
  takeTokenSql,
  WAKE_ARGS,
  wakeWaitersSql,
} from '../../repos/limit-sql.js';
import { sqliteJsonText } from '../sqlite/sqlite-sql.js';
import type { SlotArgs, TokenArgs, WakeArgs } from '../storage-dialect.js';
import type { D1Like } from './d1-like.js';

const SLOT_ARGS = ['key', 'now', 'holder', 'exp', 'max'] as const;
const [DROP_LAPSED, ACQUIRE] = acquireSlotSql(
  (n) => `?${SLOT_ARGS.indexOf(n as (typeof SLOT_ARGS)[number]) + 1}`,
) as [string, string];
const TAKE = takeTokenSql(
  (n) => `?${TAKE_ARGS.indexOf(n as (typeof TAKE_ARGS)[number]) + 1}`,
  'min',
  'max',
);

export async function acquireSlotD1(d1: D1Like, a: SlotArgs): Promise<boolean> {
  const values = SLOT_ARGS.map((n) => a[n]);
  const [, insert] = await d1.batch([
    d1.prepare(DROP_LAPSED).bind(...values.slice(0, 2)),
    d1.prepare(ACQUIRE).bind(...values),
  ]);
  return Number(insert?.meta.changes ?? 0) > 0;
}

// Both statements bind the same numbered parameters (a statement need not use them all).
const [RELEASE, WAKE] = wakeWaitersSql(
  (n) => `?${WAKE_ARGS.indexOf(n as (typeof WAKE_ARGS)[number]) + 1}`,
  (f) => sqliteJsonText('waiting', f),
  'max',
  '',
) as [string, string];

/** One batch (one transaction): the slot given back, then the wake that counts what is left. */
export async function wakeWaitersD1(d1: D1Like, a: WakeArgs): Promise<number> {
  const values = WAKE_ARGS.map((n) => a[n]);
  const [, wake] = await d1.batch([
    d1.prepare(RELEASE).bind(...values.slice(0, 6)),
    d1.prepare(WAKE).bind(...values),
  ]);
  return Number(wake?.meta.changes ?? 0);
}

export async function takeTokenD1(d1: D1Like, a: TokenArgs): Promise<boolean> {
  const res = await d1
    .prepare(TAKE)
    .bind(...TAKE_ARGS.map((n) => a[n]))
    .run();
  return Number(res.meta.changes ?? 0) > 0;
}
