// The shared limits' statements (repos/limits.ts), written once and given each dialect's
// parameters: `p(name)` is how a named value is bound (`@name` for better-sqlite3, `?n` for D1,
// `$n` for PostgreSQL), and the bucket's least/greatest are the dialect's function names.

/** Drops the key's lapsed slots, then takes one while fewer than `max` are held (by holder). */
export const acquireSlotSql = (p: (n: string) => string) => [
  `delete from limit_slots where key = ${p('key')} and expires_at <= ${p('now')}`,
  `insert into limit_slots (key, holder, expires_at)
   select ${p('key')}, ${p('holder')}, ${p('exp')}
   where (select count(*) from limit_slots where key = ${p('key')}) < ${p('max')}
   on conflict (key, holder) do update set expires_at = excluded.expires_at`,
];

/** The parameters of `takeTokenSql`, in order (for positional binding). */
export const TAKE_ARGS = ['key', 'burst', 'now', 'rate'] as const;

/** One upsert that takes a token only while one is left after the refill since `at_ms`. */
export const takeTokenSql = (p: (n: string) => string, least: string, greatest: string) => {
  const refill = `${least}(${p('burst')}, limit_buckets.tokens + ${greatest}(0, ${p('now')} - limit_buckets.at_ms) * ${p('rate')} / 1000.0)`;
  return `insert into limit_buckets (key, tokens, at_ms) values (${p('key')}, ${p('burst')} - 1, ${p('now')})
    on conflict (key) do update set tokens = ${refill} - 1,
      at_ms = ${greatest}(limit_buckets.at_ms, ${p('now')})
    where ${refill} >= 1`;
};

/**
 * The waiting list of a `maxRunning` key: queued jobs whose `waiting` names the key's scope
 * (`<reason>:<name>` is the start gate's counter key) and a slot (`by` = concurrency). The hold
 * stored them with a long backstop due time, so the claim passes them by until a wake makes them
 * due. `field(f)` is the dialect's text of `waiting`'s member `f` (the indexes' expressions and the
 * statements' must be the same text for the indexes to serve them).
 */
export const waitersIndexSql = (field: (f: string) => string) => [
  `create index jobs_limit_waiters on jobs (${field('reason')}, ${field('name')}, priority desc,
    created_at) where state = 'queued' and waiting is not null`,
  // The wake's count of waiters already due reads a range of this one, at most `max` rows: in
  // the other it would read every waiter of the key (0.7 ms per release at 1,000 waiters).
  `create index jobs_limit_waiters_due on jobs (${field('reason')}, ${field('name')}, run_after)
    where state = 'queued' and waiting is not null`,
];

/** The parameters of `wakeWaitersSql`, in order (for positional binding). */
export const WAKE_ARGS = ['key', 'holder', 'reason', 'name', 'max', 'now', 'at'] as const;

/**
 * Gives back `holder`'s slot of `key` (a null or unknown holder: none), then makes due at `at`
 * as many waiters of the key (priority, then age) as the key has free slots now, less the
 * waiters already due and not yet claimed (a wake in flight counts for its slot). Waiters not yet
 * due only: a job is woken once. `lock` follows the candidate select: PostgreSQL's `for update
 * skip locked` keeps two concurrent wakes from picking the same job (one wake would be lost).
 */
export const wakeWaitersSql = (
  p: (n: string) => string,
  field: (f: string) => string,
  greatest: string,
  lock: string,
) => {
  const waiter = `state = 'queued' and waiting is not null and ${field('reason')} = ${p('reason')}
    and ${field('name')} = ${p('name')} and ${field('by')} = 'concurrency'`;
  return [
    `delete from limit_slots where key = ${p('key')} and (holder = ${p('holder')}
      or expires_at <= ${p('now')})`,
    `update jobs set run_after = ${p('at')} where id in (select id from jobs
      where ${waiter} and run_after > ${p('at')} order by priority desc, created_at
      limit ${greatest}(0, ${p('max')} - (select count(*) from limit_slots where key = ${p('key')})
        - (select count(*) from (select 1 from jobs where ${waiter} and run_after <= ${p('at')}
          limit ${p('max')}) d))${lock})`,
  ];
};
