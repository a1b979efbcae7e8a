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
