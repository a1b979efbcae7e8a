// Owner-checked Lua scripts (BullMQ's removeLock shape): each one reads the
// entry's owner from the pending list and acts only if it is still this consumer, atomically.
// `XACK` and `XCLAIM` themselves check no owner: a consumer that was paused past the idle
// threshold would otherwise take its entry back from the consumer that claimed it, or finish it
// under that consumer's feet.

import type { StreamsScript } from './types.js';

/**
 * `owner(stream, group, id)`: the consumer that holds `id`, or false when nobody does, also when
 * the group itself is gone (NOGROUP after a restart): then nothing can be renewed or
 * acknowledged, a requeue or a dead letter is still written, and the next read recreates the group.
 */
const OWNER = `
local function owner(stream, group, id)
  local p = redis.pcall('XPENDING', stream, group, id, id, 1)
  if type(p) == 'table' and p.err then return false end
  if p[1] then return p[1][2] end
  return false
end
`;

/** KEYS[1] stream · ARGV group, consumer, id… → one code per id: 1 renewed, 0 lost, 2 not pending. */
export const RENEW_OWNED: StreamsScript = {
  name: 'renew-owned',
  lua: `${OWNER}
local out = {}
for i = 3, #ARGV do
  local o = owner(KEYS[1], ARGV[1], ARGV[i])
  if o == ARGV[2] then
    -- JUSTID: resets the idle time without counting a delivery.
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
    out[#out + 1] = 1
  elseif o then
    out[#out + 1] = 0
  else
    out[#out + 1] = 2
  end
end
return out`,
};

/** KEYS[1] stream · ARGV group, consumer, id… → how many were acknowledged. */
export const ACK_OWNED: StreamsScript = {
  name: 'ack-owned',
  lua: `${OWNER}
local ids = {}
for i = 3, #ARGV do
  if owner(KEYS[1], ARGV[1], ARGV[i]) == ARGV[2] then ids[#ids + 1] = ARGV[i] end
end
if #ids == 0 then return 0 end
return redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))`,
};

/**
 * Puts an entry back at the end of its stream now (drain, retry without delay) and finishes the
 * old one. KEYS[1] stream · ARGV group, consumer, id, field, value… → 1 requeued, 0 someone else's.
 * An entry that is pending nowhere (the server lost it) is requeued too: the job needs a dispatch.
 */
export const REQUEUE_OWNED: StreamsScript = {
  name: 'requeue-owned',
  lua: `${OWNER}
local o = owner(KEYS[1], ARGV[1], ARGV[3])
if o and o ~= ARGV[2] then return 0 end
redis.call('XADD', KEYS[1], '*', unpack(ARGV, 4))
if o then redis.call('XACK', KEYS[1], ARGV[1], ARGV[3]) end
return 1`,
};

/**
 * Copies an entry to the dead-letter stream with its reason and finishes it, in one step.
 * KEYS[1] stream, KEYS[2] dead-letter stream · ARGV group, consumer, id, maxLen, field, value…
 * → 1 dead-lettered, 0 someone else's.
 */
export const DEAD_LETTER_OWNED: StreamsScript = {
  name: 'dead-letter-owned',
  lua: `${OWNER}
local o = owner(KEYS[1], ARGV[1], ARGV[3])
if o and o ~= ARGV[2] then return 0 end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', unpack(ARGV, 5))
if o then redis.call('XACK', KEYS[1], ARGV[1], ARGV[3]) end
return 1`,
};

/**
 * Trims a job stream strictly below min(oldest pending id, last-delivered id) over every group,
 * so no pending or undelivered entry is ever removed (XTRIM's KEEPREF, which would keep them,
 * exists only from Redis 8.2).
 * KEYS[1] stream → entries removed.
 */
export const TRIM_BELOW_WORK: StreamsScript = {
  name: 'trim-below-work',
  lua: `
local function before(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
  return am < bm or (am == bm and as < bs)
end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local groups = redis.call('XINFO', 'GROUPS', KEYS[1])
if #groups == 0 then return 0 end
local cut = false
for _, g in ipairs(groups) do
  local name, last
  for i = 1, #g, 2 do
    if g[i] == 'name' then name = g[i + 1] elseif g[i] == 'last-delivered-id' then last = g[i + 1] end
  end
  if not cut or before(last, cut) then cut = last end
  local p = redis.call('XPENDING', KEYS[1], name)
  if p[2] and before(p[2], cut) then cut = p[2] end
end
return redis.call('XTRIM', KEYS[1], 'MINID', cut)`,
};

/**
 * Deletes consumers that hold nothing and were idle longer than ARGV[2] (never this one): a
 * consumer without pending entries loses nothing by going, and the group's consumer list stays
 * meaningful. KEYS[1] stream · ARGV group, minIdleMs, this consumer → consumers deleted.
 */
export const REAP_IDLE_CONSUMERS: StreamsScript = {
  name: 'reap-idle-consumers',
  lua: `
local removed = 0
for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  local name, pending, idle
  for i = 1, #c, 2 do
    if c[i] == 'name' then name = c[i + 1]
    elseif c[i] == 'pending' then pending = c[i + 1]
    elseif c[i] == 'idle' then idle = c[i + 1] end
  end
  if pending == 0 and idle > tonumber(ARGV[2]) and name ~= ARGV[3] then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], name)
    removed = removed + 1
  end
end
return removed`,
};
