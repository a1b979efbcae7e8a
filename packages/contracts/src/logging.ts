// The one log shape of every Sluice process, runtime-neutral: the narrow interface the gateway and
// worker write to, pino's options that give each line the same fields, and the adapter over a
// pino logger. Nothing here imports pino: Node processes pass `pino(sluiceLogOptions(…))` to
// `loggerFromPino`; Cloudflare code (or a test spy) implements `SluiceLogger` itself.
//
// A line: {"level":"info","time":"2026-12-01T07:00:00.000Z","service":"worker","msg":"job state",
// "jobId":…,"kind":…,"version":…,"attempt":…,"traceId":…,"from":…,"to":…}

import type { JobEvent } from './events.js';
import { parseJobId } from './job-id.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFields = Record<string, unknown>;

/** What gateway and worker code logs through. */
export interface SluiceLogger {
  /** Detail for LOG_LEVEL=debug (resolved settings, one line per request); optional to implement. */
  debug?(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** Whether a level is written: callers skip building per-job fields when it is not. */
  isLevelEnabled?(level: LogLevel): boolean;
}

/**
 * Redacted wherever they appear at the top level or one object down: credentials, job inputs
 * and provider request bodies (they may carry personal data or keys). `redactLogFields` applies
 * exactly these; the list stays as the documented contract.
 */
export const LOG_REDACT_PATHS: readonly string[] = [
  'input',
  'apiKey',
  'authorization',
  'password',
  'secret',
  'token',
  'headers.authorization',
  'headers.cookie',
  'headers["x-api-key"]',
  'request.body',
  'requestBody',
].flatMap((path) => [path, `*.${path}`]);

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** `LOG_LEVEL` as given (unset or empty: info); an unknown value is refused, not ignored. */
export function parseLogLevel(raw: string | undefined): LogLevel {
  const level = raw?.trim().toLowerCase();
  if (!level) return 'info';
  if (!isLogLevel(level)) {
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join('|')}, got "${raw}"`);
  }
  return level;
}

/** An error as a log field: its name, message and code (never its stack or causes' data). */
export function logError(value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  const code = (value as { code?: unknown }).code;
  return { name: value.name, message: value.message, ...(code === undefined ? {} : { code }) };
}

const CENSOR = '[redacted]';
/** Keys censored where they appear (top level, or inside a top-level object). */
const SECRET_KEYS = new Set([
  'input',
  'apiKey',
  'authorization',
  'password',
  'secret',
  'token',
  'requestBody',
]);
/** Keys censored inside an object of that name (`headers.authorization`, `request.body`). */
const SECRET_CHILDREN: Readonly<Record<string, readonly string[]>> = {
  headers: ['authorization', 'cookie', 'x-api-key'],
  request: ['body'],
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || Array.isArray(value);
}

/** One object's own secrets censored; the same object back when it holds none (no copy). */
function censorLevel(obj: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  const set = (key: string, value: unknown) => {
    out ??= Array.isArray(obj) ? ([...obj] as unknown as Record<string, unknown>) : { ...obj };
    out[key] = value;
  };
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (value === undefined) continue;
    if (SECRET_KEYS.has(key)) {
      set(key, CENSOR);
      continue;
    }
    const children = SECRET_CHILDREN[key];
    if (!children || !isPlainObject(value)) continue;
    const hidden = children.filter((c) => value[c] !== undefined);
    if (hidden.length === 0) continue;
    const copy = { ...value };
    for (const c of hidden) copy[c] = CENSOR;
    set(key, copy);
  }
  return out ?? obj;
}

/**
 * The fields of a line with `LOG_REDACT_PATHS` censored, at the top level and one object down,
 * without touching the caller's object. A hand-written walk over the line's own keys: pino's
 * path-based `redact` parsed every path on every line, a tenth of a busy worker's CPU.
 */
export function redactLogFields(fields: Record<string, unknown>): Record<string, unknown> {
  // Fast path, the common line (a job state: flat strings and numbers): one pass, no copy.
  let flat = true;
  for (const key in fields) {
    const value = fields[key];
    if (SECRET_KEYS.has(key) || (typeof value === 'object' && value !== null)) {
      flat = false;
      break;
    }
  }
  if (flat) return fields;
  let out = censorLevel(fields);
  for (const key of Object.keys(out)) {
    const value = out[key];
    if (!isPlainObject(value)) continue;
    const censored = censorLevel(value);
    if (censored === value) continue;
    if (out === fields) out = { ...fields };
    out[key] = censored;
  }
  return out;
}

let lastMs = -1;
let lastField = '';
/** pino's `time` field; formatted once per millisecond (a busy worker logs bursts of lines). */
function isoTimeField(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastField = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastField;
}

/** pino options (structurally typed, so this module needs no pino) giving the shared shape. */
export function sluiceLogOptions(opts: { service: string; level?: LogLevel | undefined }) {
  return {
    level: opts.level ?? 'info',
    base: { service: opts.service },
    messageKey: 'msg',
    timestamp: isoTimeField,
    formatters: { level: (label: string) => ({ level: label }), log: redactLogFields },
    serializers: { error: logError, err: logError },
  };
}

/** The subset of a pino logger the adapter uses. */
export interface PinoLike {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  isLevelEnabled(level: string): boolean;
}

const NO_FIELDS = {};

/** `SluiceLogger` over pino (message first here, fields first in pino). */
export function loggerFromPino(p: PinoLike): SluiceLogger {
  return {
    debug: (message, fields) => p.debug(fields ?? NO_FIELDS, message),
    info: (message, fields) => p.info(fields ?? NO_FIELDS, message),
    warn: (message, fields) => p.warn(fields ?? NO_FIELDS, message),
    error: (message, fields) => p.error(fields ?? NO_FIELDS, message),
    isLevelEnabled: (level) => p.isLevelEnabled(level),
  };
}

/** The fields of a job's state-change line: the same in gateway and worker. */
export function jobStateFields(
  e: Extract<JobEvent, { type: 'state' }>,
  kind: string,
  job: { version?: string; attempts?: number; traceContext?: string | null } | undefined,
): LogFields {
  return {
    jobId: e.jobId,
    kind,
    version: job?.version ?? parseJobId(e.jobId)?.version,
    attempt: e.attempt ?? job?.attempts,
    traceId: traceIdOf(job?.traceContext),
    from: e.from,
    to: e.to,
    ...(e.reason === undefined ? {} : { reason: e.reason }),
    ...(e.error === undefined ? {} : { error: e.error.message }),
  };
}

/** The trace id of a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`), for log lines. */
export function traceIdOf(traceparent: string | null | undefined): string | undefined {
  return traceparent ? traceparent.slice(3, 35) : undefined;
}
