// Bounded-depth dispatch (fairness across tenants on Streams): a job stream never holds more than
// `max` entries its consumer group has not been handed yet. The check and the XADDs are one Lua
// script per stream, so several gateway replicas together cannot overfill it. What does not fit
// stays in the database (held outbox rows) and the fair feeder hands it out round-robin across
// tenants as workers make room, so one tenant's backlog waits in the database, not in the stream.

import { groupBySlot } from '../keys.js';
import type { RedisClient } from './redis-client.js';

/**
 * Undelivered entries of `group` (XINFO GROUPS `lag`; when the server cannot tell, the entries
 * after `last-delivered-id`, counted up to `max`). No group yet: the stream's length.
 */
const UNDELIVERED = `
local function undelivered(stream, group, max)
  local ok, groups = pcall(redis.call, 'XINFO', 'GROUPS', stream)
  if not ok then return 0 end
  for _, g in ipairs(groups) do
    local f = {}
    for i = 1, #g, 2 do f[g[i]] = g[i + 1] end
    if f['name'] == group then
      if f['lag'] then return tonumber(f['lag']) end
      local after = redis.call('XRANGE', stream, '(' .. f['last-delivered-id'], '+', 'COUNT', max)
      return #after
    end
  end
  return redis.call('XLEN', stream)
end
`;

/**
 * KEYS[1] stream · ARGV group, max, fields per entry, maxLen ('' for none), then the entries'
 * fields one after another → how many of the entries were added (the first ones, in order).
 */
export const ADD_WITHIN_DEPTH = `${UNDELIVERED}
local max = tonumber(ARGV[2])
local width = tonumber(ARGV[3])
local room = max - undelivered(KEYS[1], ARGV[1], max)
local added = 0
for at = 5, #ARGV, width do
  if added >= room then break end
  local args = {'XADD', KEYS[1]}
  if ARGV[4] ~= '' then
    args[#args + 1] = 'MAXLEN'; args[#args + 1] = '~'; args[#args + 1] = ARGV[4]
  end
  args[#args + 1] = '*'
  for i = at, at + width - 1 do args[#args + 1] = ARGV[i] end
  redis.call(unpack(args))
  added = added + 1
end
return added`;

/** KEYS: streams · ARGV group, max → the room left in each stream (max − undelivered, ≥ 0). */
export const ROOM = `${UNDELIVERED}
local max = tonumber(ARGV[2])
local out = {}
for i, stream in ipairs(KEYS) do
  local room = max - undelivered(stream, ARGV[1], max)
  if room < 0 then room = 0 end
  out[i] = room
end
return out`;

export type RoomClient = Pick<RedisClient, 'eval' | 'pipeline'>;

/**
 * Room left in each stream (same order). One script call per hash slot (the streams of one
 * kind and version share a slot), so it holds on Redis Cluster; on one server they go out in
 * one pipeline, still one round trip.
 */
export async function roomIn(
  redis: RoomClient,
  streams: readonly string[],
  group: string,
  max: number,
): Promise<number[]> {
  if (streams.length === 0) return [];
  const slots = groupBySlot(streams, (s) => s);
  const pipe = redis.pipeline();
  for (const indexes of slots) {
    const keys = indexes.map((i) => streams[i] as string);
    pipe.eval(ROOM, keys.length, ...keys, group, max);
  }
  const replies = await pipe.exec();
  if (!replies) throw new Error('room pipeline was not executed');
  const out: number[] = Array.from(streams, () => 0);
  slots.forEach((indexes, k) => {
    const [error, reply] = replies[k] ?? [new Error('no reply'), null];
    if (error) throw error;
    indexes.forEach((i, j) => (out[i] = Number((reply as unknown[])[j])));
  });
  return out;
}
