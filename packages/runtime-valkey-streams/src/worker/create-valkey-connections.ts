// The iovalkey adapter behind the Streams runtime's narrow `StreamsClient`: one connection for
// commands and a dedicated one for `XREADGROUP … BLOCK` (a blocked read holds its connection).
// The blocking connection never resends an interrupted read (bullmq PR #4484: a resent blocking
// read can hang for good); the consumer's watchdog resets it when a read outlives its block
// time, and CLIENT UNBLOCK (sent on the command connection) ends a read early on shutdown.

import { createHash } from 'node:crypto';
import type { Redis, RedisOptions } from 'iovalkey';
import type {
  BlockingStreamsClient,
  ScriptCall,
  ScriptReply,
  StreamsClient,
  StreamsConnections,
  StreamsScript,
  XReadGroupQuery,
} from './types.js';
import { ManagedConnection } from './managed-connection.js';
import { parseRedisTarget } from '../cluster-target.js';
import { groupBySlot } from '../keys.js';

export interface ValkeyConnectionOptions {
  /** `redis://host:port[/db]` or `redis+cluster://host:port,…` (Valkey or Redis ≥ 7). */
  url: string;
  /** A command not answered within this is failed and its connection replaced (default 3 000 ms). */
  commandTimeoutMs?: number | undefined;
  /** How long a command waits for a (re)connection (default 1 000 ms). */
  readyWaitMs?: number | undefined;
  /** Shown in CLIENT LIST (default `sluice-worker`). */
  name?: string | undefined;
  /** Connection errors, at most one a second. */
  onError?: ((error: unknown) => void) | undefined;
}

const shas = new Map<string, string>();
/** A script's EVALSHA digest, hashed once per script (it was hashed per call, ~1 % of a worker). */
const sha1 = (s: string) => {
  let sha = shas.get(s);
  if (sha === undefined) shas.set(s, (sha = createHash('sha1').update(s).digest('hex')));
  return sha;
};

/**
 * `XADD`s into one stream as ONE script call: a flush publishes an entry per job, and 64 pipelined
 * commands cost the client ~8 % of a busy worker's CPU (a command object, promise and reply
 * each). ARGV: maxLen (0: no trim), then per entry its field count and fields.
 */
const XADD_MANY: StreamsScript = {
  name: 'xadd-many',
  lua: `
local maxLen = tonumber(ARGV[1])
local i = 2
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  local fields = {}
  for k = 1, n do fields[k] = ARGV[i + k] end
  if maxLen > 0 then
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', maxLen, '*', unpack(fields))
  else
    redis.call('XADD', KEYS[1], '*', unpack(fields))
  end
  i = i + n + 1
end
return 1`,
};

function readArgs(q: XReadGroupQuery, blockMs?: number): (string | number)[] {
  return [
    'GROUP',
    q.group,
    q.consumer,
    'COUNT',
    q.count,
    ...(blockMs === undefined ? [] : ['BLOCK', blockMs]),
    'STREAMS',
    ...q.streams.map(([s]) => s),
    ...q.streams.map(([, id]) => id),
  ];
}

function throttled(fn: (error: unknown) => void): (error: unknown) => void {
  let last = -Infinity;
  return (error) => {
    if (Date.now() - last < 1000) return;
    last = Date.now();
    fn(error);
  };
}

export function createValkeyConnections(opts: ValkeyConnectionOptions): StreamsConnections {
  const onError = throttled(opts.onError ?? (() => {}));
  const base: RedisOptions = {
    connectionName: opts.name ?? 'sluice-worker',
    enableReadyCheck: false,
    enableOfflineQueue: false,
    connectTimeout: 5000,
    // Reconnect tries stay frequent (≤ 500 ms apart): a server back from a restart is used at once.
    retryStrategy: (times) => Math.min(500, 50 * 2 ** Math.min(times, 4)),
  };
  const commands = new ManagedConnection({
    url: opts.url,
    readyWaitMs: opts.readyWaitMs,
    onError,
    options: { ...base, maxRetriesPerRequest: 1, commandTimeout: opts.commandTimeoutMs ?? 3000 },
  });
  // The blocking connection's handshake learns its server-side id (for CLIENT UNBLOCK). A read
  // goes out only once that answered, so it is the one command in flight: a connection that lost
  // bytes (a blackhole) would match the read's reply to an older command and never recover.
  const cluster = parseRedisTarget(opts.url).cluster;
  const blockingIds = new WeakMap<Redis, number>();
  const blockingConn = new ManagedConnection({
    url: opts.url,
    readyWaitMs: opts.readyWaitMs,
    onError,
    options: {
      ...base,
      connectionName: `${base.connectionName}-blocking`,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
    },
    // On a cluster CLIENT ID would answer from some node, not the one a read blocks on: the
    // default handshake is used and `interrupt` leaves the (shorter, see reader.ts) read to end.
    handshake: cluster
      ? undefined
      : async (redis) => {
          blockingIds.delete(redis);
          const id = Number(await redis.call('CLIENT', ['ID']));
          if (!Number.isSafeInteger(id)) return false;
          blockingIds.set(redis, id);
          return true;
        },
  });

  const call = (name: string, args: (string | number)[]) => commands.run((r) => r.call(name, args));

  const runOneSlot = async (redis: Redis, calls: readonly ScriptCall[]): Promise<ScriptReply[]> => {
    const exec = (redis: Redis, batch: readonly ScriptCall[], withBody = false) => {
      const p = redis.pipeline();
      for (const c of batch)
        p.call(withBody ? 'EVAL' : 'EVALSHA', [
          withBody ? c.script.lua : sha1(c.script.lua),
          c.keys.length,
          ...c.keys,
          ...c.args,
        ]);
      return p
        .exec()
        .then((rows) =>
          (rows ?? []).map(([error, value]): ScriptReply =>
            error ? { ok: false, error } : { ok: true, value },
          ),
        );
    };
    const replies = await exec(redis, calls);
    const missing = replies.flatMap((r, i) =>
      !r.ok && /^NOSCRIPT/.test(r.error.message) ? [i] : [],
    );
    if (missing.length === 0) return replies;
    if (cluster) {
      // SCRIPT LOAD would reach some node, not the slot's master: EVAL sends the body along
      // to the right one (which caches it for the next EVALSHA).
      const again = await exec(
        redis,
        missing.map((i) => calls[i] as ScriptCall),
        true,
      );
      missing.forEach((i, k) => (replies[i] = again[k] as ScriptReply));
      return replies;
    }
    // The server lost its script cache (restart) or never had it: load once, run those again.
    const scripts = new Map<string, StreamsScript>();
    for (const i of missing) {
      const s = (calls[i] as ScriptCall).script;
      scripts.set(s.lua, s);
    }
    for (const s of scripts.values()) await redis.call('SCRIPT', ['LOAD', s.lua]);
    const again = await exec(
      redis,
      missing.map((i) => calls[i] as ScriptCall),
    );
    missing.forEach((i, k) => (replies[i] = again[k] as ScriptReply));
    return replies;
  };

  const runScripts = async (calls: readonly ScriptCall[]): Promise<ScriptReply[]> => {
    if (calls.length === 0) return [];
    return commands.run(async (redis) => {
      if (!cluster) return runOneSlot(redis, calls);
      // A cluster pipeline must stay in one slot: one per slot, in parallel, replies in order.
      const out: ScriptReply[] = [];
      await Promise.all(
        groupBySlot(calls, (c) => c.keys[0] ?? '').map(async (indexes) => {
          const replies = await runOneSlot(
            redis,
            indexes.map((i) => calls[i] as ScriptCall),
          ).catch((error: unknown) =>
            indexes.map((): ScriptReply => ({ ok: false, error: error as Error })),
          );
          indexes.forEach((i, k) => (out[i] = replies[k] as ScriptReply));
        }),
      );
      return out;
    });
  };

  const client: StreamsClient = {
    xgroupCreate: (stream, group, id) => call('XGROUP', ['CREATE', stream, group, id, 'MKSTREAM']),
    xreadgroup: (q) => call('XREADGROUP', readArgs(q)),
    xautoclaim: (stream, group, consumer, minIdleMs, start, count) =>
      call('XAUTOCLAIM', [stream, group, consumer, minIdleMs, start, 'COUNT', count]),
    xclaim: (stream, group, consumer, minIdleMs, ids) =>
      call('XCLAIM', [stream, group, consumer, minIdleMs, ...ids]),
    xpendingSummary: (stream, group) => call('XPENDING', [stream, group]),
    xpendingRange: (stream, group, start, end, count, consumer) =>
      call('XPENDING', [stream, group, start, end, count, ...(consumer ? [consumer] : [])]),
    xinfoGroups: (stream) => call('XINFO', ['GROUPS', stream]),
    xinfoConsumers: (stream, group) => call('XINFO', ['CONSUMERS', stream, group]),
    xlen: async (stream) => Number(await call('XLEN', [stream])),
    async xaddMany(entries) {
      if (entries.length === 0) return;
      // One script call per stream and trim length (in practice: the events stream, one call).
      const calls = new Map<string, { keys: string[]; args: (string | number)[] }>();
      for (const e of entries) {
        const at = `${e.stream}\u0000${e.maxLen ?? 0}`;
        let call = calls.get(at);
        if (!call) calls.set(at, (call = { keys: [e.stream], args: [e.maxLen ?? 0] }));
        call.args.push(e.fields.length);
        for (const f of e.fields) call.args.push(f);
      }
      const replies = await runScripts(
        [...calls.values()].map((c) => ({ script: XADD_MANY, ...c })),
      );
      const failed = replies.find((r) => !r.ok);
      if (failed && !failed.ok) throw failed.error;
    },
    zaddGt: (key, score, member) => call('ZADD', [key, 'GT', score, member]),
    zrangeByScoreFrom: async (key, min) =>
      (await call('ZRANGEBYSCORE', [key, min, '+inf'])) as string[],
    runScripts,
  };

  const blocking: BlockingStreamsClient = {
    xreadgroup: (q) =>
      blockingConn.run((redis) => redis.call('XREADGROUP', readArgs(q, q.blockMs))),
    async interrupt() {
      if (cluster) return;
      const id = blockingIds.get(blockingConn.current);
      if (id === undefined) throw new Error('blocking connection id unknown');
      await call('CLIENT', ['UNBLOCK', id]);
    },
    reset: () => blockingConn.replace(),
    close: async () => blockingConn.close(),
  };

  return {
    commands: client,
    blocking,
    singleSlotCommands: cluster,
    async close() {
      blockingConn.close();
      commands.close();
    },
  };
}
