// Version routing. The version is chosen once, at accept time, by a deterministic hash, and
// written into the job id; from then on only the id's prefix routes the job. A version without a
// registered handler is a dead-letter reason, never a fallback to another version.

import { SluiceError } from './errors.js';
import { parseJobId } from './job-id.js';

export interface RolloutConfig {
  current: string;
  next?: string | undefined;
  /** Share of keys that go to `next`, 0–100 (fractions allowed). Defaults to 0. */
  rolloutPercent?: number | undefined;
}

/** 32-bit FNV-1a over UTF-16 code units, finished with murmur3's avalanche. */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function assertRolloutPercent(value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
    throw new SluiceError('INVALID_CONFIG', `rolloutPercent must be 0–100, got ${String(value)}`);
  }
  return value;
}

/** Same key, same answer. 0 sends nothing to `next`, 100 sends everything. */
export function chooseVersion(key: string, config: RolloutConfig): string {
  const percent = assertRolloutPercent(config.rolloutPercent ?? 0);
  if (config.next === undefined || percent === 0) return config.current;
  // Basis points: 10,000 buckets, so fractional percentages work.
  const bucket = hashKey(key) % 10_000;
  return bucket < Math.round(percent * 100) ? config.next : config.current;
}

export type RouteResult =
  | { ok: true; version: string }
  | { ok: false; reason: 'VERSION_NOT_ROUTABLE'; version: string | null; detail: string };

/** The version in the job id if a handler serves it; otherwise a dead-letter reason. */
export function routeByPrefix(jobId: string, registeredVersions: readonly string[]): RouteResult {
  const parsed = parseJobId(jobId);
  if (!parsed) {
    return {
      ok: false,
      reason: 'VERSION_NOT_ROUTABLE',
      version: null,
      detail: `job id "${jobId}" carries no version prefix`,
    };
  }
  if (!registeredVersions.includes(parsed.version)) {
    return {
      ok: false,
      reason: 'VERSION_NOT_ROUTABLE',
      version: parsed.version,
      detail: `no handler registered for ${parsed.version} (registered: ${registeredVersions.join(', ') || 'none'})`,
    };
  }
  return { ok: true, version: parsed.version };
}
