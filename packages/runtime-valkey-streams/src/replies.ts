// Typed readers for Valkey/Redis stream replies. iovalkey hands them back as raw arrays typed
// `unknown` (no reply parsing in the client): these are the one place they are interpreted, shared
// by the gateway's dispatch half and the worker's consume half. Pure; a malformed reply throws.

import { SluiceError } from '@sluice/contracts';

export interface StreamEntry {
  id: string;
  /** `null` when the entry was deleted or trimmed while pending (`[id, null]`). */
  fields: string[] | null;
}

function fail(what: string): never {
  throw new SluiceError('INTERNAL', `unexpected ${what} reply from the stream server`);
}

function str(v: unknown, what: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  return fail(what);
}

export function parseEntries(reply: unknown, what = 'entries'): StreamEntry[] {
  if (!Array.isArray(reply)) return fail(what);
  return reply.map((e) => {
    if (!Array.isArray(e) || e.length < 2) return fail(what);
    const [id, fields] = e as [unknown, unknown];
    if (fields === null) return { id: str(id, what), fields: null };
    if (!Array.isArray(fields)) return fail(what);
    return { id: str(id, what), fields: fields.map((f) => str(f, what)) };
  });
}

/** XREADGROUP / XREAD: `null` on a block timeout, else `[[stream, entries], …]`. */
export function parseXRead(reply: unknown): { stream: string; entries: StreamEntry[] }[] {
  if (reply === null || reply === undefined) return [];
  if (!Array.isArray(reply)) return fail('XREAD');
  return reply.map((s) => {
    if (!Array.isArray(s) || s.length !== 2) return fail('XREAD');
    return { stream: str(s[0], 'XREAD'), entries: parseEntries(s[1], 'XREAD') };
  });
}

/** XAUTOCLAIM (Redis/Valkey ≥ 7): `[next cursor, entries, deleted ids]`. */
export function parseXAutoClaim(reply: unknown): {
  next: string;
  entries: StreamEntry[];
  deleted: string[];
} {
  if (!Array.isArray(reply) || reply.length < 2) return fail('XAUTOCLAIM');
  const deleted = reply[2];
  return {
    next: str(reply[0], 'XAUTOCLAIM'),
    entries: parseEntries(reply[1], 'XAUTOCLAIM'),
    deleted: Array.isArray(deleted) ? deleted.map((d) => str(d, 'XAUTOCLAIM')) : [],
  };
}

export interface PendingSummary {
  count: number;
  minId: string | null;
  maxId: string | null;
  /** Per-consumer pending counts (the server sends them as strings). */
  consumers: { name: string; pending: number }[];
}

/** XPENDING key group (summary form). An empty group is `[0, null, null, null]`. */
export function parseXPendingSummary(reply: unknown): PendingSummary {
  if (!Array.isArray(reply) || reply.length < 4) return fail('XPENDING');
  const [count, minId, maxId, consumers] = reply as [unknown, unknown, unknown, unknown];
  return {
    count: Number(count),
    minId: minId === null ? null : str(minId, 'XPENDING'),
    maxId: maxId === null ? null : str(maxId, 'XPENDING'),
    consumers: Array.isArray(consumers)
      ? consumers.map((c) => {
          if (!Array.isArray(c) || c.length !== 2) return fail('XPENDING');
          return { name: str(c[0], 'XPENDING'), pending: Number(c[1]) };
        })
      : [],
  };
}

export interface PendingEntry {
  id: string;
  consumer: string;
  idleMs: number;
  deliveries: number;
}

/** XPENDING key group [IDLE ms] start end count [consumer] (extended form). */
export function parseXPendingRange(reply: unknown): PendingEntry[] {
  if (!Array.isArray(reply)) return fail('XPENDING');
  return reply.map((e) => {
    if (!Array.isArray(e) || e.length !== 4) return fail('XPENDING');
    return {
      id: str(e[0], 'XPENDING'),
      consumer: str(e[1], 'XPENDING'),
      idleMs: Number(e[2]),
      deliveries: Number(e[3]),
    };
  });
}

/** XINFO GROUPS / CONSUMERS / STREAM: flat `[k, v, k, v…]` arrays to records. */
export function parseFlatRecord(reply: unknown): Record<string, unknown> {
  if (!Array.isArray(reply) || reply.length % 2 !== 0) return fail('XINFO');
  const out: Record<string, unknown> = {};
  for (let i = 0; i < reply.length; i += 2) out[str(reply[i], 'XINFO')] = reply[i + 1];
  return out;
}

export function parseFlatRecords(reply: unknown): Record<string, unknown>[] {
  if (!Array.isArray(reply)) return fail('XINFO');
  return reply.map(parseFlatRecord);
}

/** Milliseconds part of a stream id (`1700000000000-3` → 1700000000000). */
export function streamIdTime(id: string): number {
  const ms = Number(id.split('-')[0]);
  return Number.isFinite(ms) ? ms : NaN;
}

/** True for NOGROUP errors (the stream or group is gone: a restart without persistence). */
export function isNoGroupError(error: unknown): boolean {
  return error instanceof Error && /^NOGROUP\b/.test(error.message);
}

/** True for BUSYGROUP errors (`XGROUP CREATE` of a group that exists: fine). */
export function isBusyGroupError(error: unknown): boolean {
  return error instanceof Error && /^BUSYGROUP\b/.test(error.message);
}
