// The narrow Redis/Valkey surface the Streams consumer uses (a fake or another client fits): only
// these commands, replies left raw (`unknown`) and read with the contracts parsers. The iovalkey
// adapter lives outside `runtimes/` (`src/valkey/`), so this runtime depends on no client library.

import type { Delivery } from '@sluice/contracts';

export interface XReadGroupQuery {
  readonly group: string;
  readonly consumer: string;
  /** `[stream, id]` pairs: `>` for new entries, a cursor (`0`) for this consumer's own pending ones. */
  readonly streams: readonly (readonly [string, string])[];
  /** Per stream (the server applies COUNT to each stream). */
  readonly count: number;
}

/** A Lua script; the client runs it by SHA and loads it once on NOSCRIPT. */
export interface StreamsScript {
  readonly name: string;
  readonly lua: string;
}

export interface ScriptCall {
  readonly script: StreamsScript;
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
}

/** One pipelined result: the reply, or the error the server sent for that call. */
export type ScriptReply = { ok: true; value: unknown } | { ok: false; error: Error };

export interface StreamsEntryToAdd {
  readonly stream: string;
  readonly fields: readonly string[];
  /** `MAXLEN ~ n` (only for streams whose old entries may go: events, dead letters). */
  readonly maxLen?: number | undefined;
}

/** Commands on the shared (non-blocking) connection. */
export interface StreamsClient {
  /** `XGROUP CREATE stream group id MKSTREAM`; rejects with BUSYGROUP when it exists. */
  xgroupCreate(stream: string, group: string, id: string): Promise<unknown>;
  /** Non-blocking XREADGROUP (own pending entries after a restart). */
  xreadgroup(query: XReadGroupQuery): Promise<unknown>;
  /** `XAUTOCLAIM stream group consumer minIdle start COUNT n`. */
  xautoclaim(
    stream: string,
    group: string,
    consumer: string,
    minIdleMs: number,
    start: string,
    count: number,
  ): Promise<unknown>;
  /** `XCLAIM stream group consumer minIdle id…` (entries with their fields). */
  xclaim(
    stream: string,
    group: string,
    consumer: string,
    minIdleMs: number,
    ids: readonly string[],
  ): Promise<unknown>;
  /** `XPENDING stream group` (summary form). */
  xpendingSummary(stream: string, group: string): Promise<unknown>;
  /** `XPENDING stream group start end count [consumer]` (extended form). */
  xpendingRange(
    stream: string,
    group: string,
    start: string,
    end: string,
    count: number,
    consumer?: string,
  ): Promise<unknown>;
  xinfoGroups(stream: string): Promise<unknown>;
  xinfoConsumers(stream: string, group: string): Promise<unknown>;
  xlen(stream: string): Promise<number>;
  /** Pipelined `XADD stream [MAXLEN ~ n] * fields…`, in order. */
  xaddMany(entries: readonly StreamsEntryToAdd[]): Promise<void>;
  /** `ZADD key GT score member`. */
  zaddGt(key: string, score: number, member: string): Promise<unknown>;
  /** `ZRANGEBYSCORE key min +inf`. */
  zrangeByScoreFrom(key: string, min: number): Promise<string[]>;
  /** Pipelined EVALSHA calls (NOSCRIPT → load and run again); one reply per call, in order. */
  runScripts(calls: readonly ScriptCall[]): Promise<ScriptReply[]>;
}

/** A dedicated connection for `XREADGROUP … BLOCK` (it holds its connection while it waits). */
export interface BlockingStreamsClient {
  xreadgroup(query: XReadGroupQuery & { readonly blockMs: number }): Promise<unknown>;
  /** Ends a blocked read early (it resolves with what it has, usually nothing). */
  interrupt(): Promise<void>;
  /** Tears the connection down (a read in progress rejects) and opens a fresh one: the watchdog. */
  reset(): void;
  close(): Promise<void>;
}

export interface StreamsConnections {
  readonly commands: StreamsClient;
  readonly blocking: BlockingStreamsClient;
  /**
   * Every command's keys must share one hash slot (Redis/Valkey Cluster): reads over the streams
   * of several (kind, version)s go out one per slot, and a blocking read covers one slot at a
   * time. Absent or false: one server, one read over every stream.
   */
  readonly singleSlotCommands?: boolean | undefined;
  /** Closes both connections. */
  close(): Promise<void>;
}

export interface StreamsDelivery extends Delivery {
  readonly stream: string;
  readonly entryId: string;
}
