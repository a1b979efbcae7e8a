// The part of a Valkey/Redis client the gateway's Streams half calls, as structural types. iovalkey
// is an optional peer dependency: the gateway's published declarations must compile in an app that
// never installed it (with `skipLibCheck: false` a declaration importing 'iovalkey' is error TS2307
// there), so no exported type names iovalkey's own. An iovalkey `Redis` satisfies these shapes
// (redis-connection.ts makes one); replies stay `unknown` where the code parses them anyway.

/** An argument of a Redis command. */
export type RedisArg = string | number | Buffer;

/** A pipeline's answers, one `[error, reply]` per queued command; null if it was discarded. */
export type PipelineReplies = [error: Error | null, reply: unknown][] | null;

// Each signature is the exact form a call here uses: iovalkey's overloads end in an optional
// callback, which a trailing `...args` would have to accept as well.

/** Commands queued on one pipeline; `exec` sends them in one write. */
export interface RedisPipeline {
  get(key: string): RedisPipeline;
  set(key: string, value: string): RedisPipeline;
  exists(key: string): RedisPipeline;
  xadd(key: string, ...args: RedisArg[]): RedisPipeline;
  xgroup(create: 'CREATE', key: string, group: string, id: string, mk: 'MKSTREAM'): RedisPipeline;
  xlen(key: string): RedisPipeline;
  xpending(key: string, group: string): RedisPipeline;
  xpending(key: string, group: string, start: '-', end: '+', count: number): RedisPipeline;
  xinfo(groups: 'GROUPS', key: string): RedisPipeline;
  xinfo(consumers: 'CONSUMERS', key: string, group: string): RedisPipeline;
  eval(script: string, numkeys: number, ...args: RedisArg[]): RedisPipeline;
  exec(): Promise<PipelineReplies>;
}

/** One connection: the commands used here plus the connection state and events. */
export interface RedisClient {
  readonly status: string;
  ping(): Promise<string>;
  pipeline(): RedisPipeline;
  eval(script: string, numkeys: number, ...args: RedisArg[]): Promise<unknown>;
  xread(
    count: 'COUNT',
    n: number,
    block: 'BLOCK',
    ms: number,
    streams: 'STREAMS',
    key: string,
    id: string,
  ): Promise<unknown>;
  xrevrange(key: string, end: string, start: string, count: 'COUNT', n: number): Promise<unknown>;
  zrangebyscore(key: string, min: string, max: string): Promise<string[]>;
  scan(
    cursor: string,
    match: 'MATCH',
    pattern: string,
    count: 'COUNT',
    n: number,
  ): Promise<[cursor: string, keys: string[]]>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  once(event: string, listener: (...args: unknown[]) => void): unknown;
  disconnect(reconnect?: boolean): void;
}
