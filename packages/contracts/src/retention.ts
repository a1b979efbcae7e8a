// Retention: how long a job is kept once it rests in a state it will not leave by itself, and the
// rules that decide it — per state, declared per kind (`defineJob({ retention })`) and overridden
// per tenant, per kind and globally in the deployment's config. The gateway's sweeper removes a
// job (and everything hanging off it) once its time in that state passed its retention.
//
// Precedence, per state: tenant > kind (config `kinds`, then the kind's declaration) > the
// config's `default` > the built-in defaults below. A job in a state nobody can expire from
// (accepted, scheduled, queued, running, needs_review) is never removed, whatever the rules say,
// and neither is a job under a legal hold.

import { z } from 'zod';
import { SluiceError } from './errors.js';
import { isJobKind, isTenantId } from './names.js';
import { JOB_STATES, type JobState } from './state-machine.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The retention settings by name (camelCase, as users write them). */
export const RETENTION_KEYS = [
  'succeeded',
  'failed',
  'deadLettered',
  'cancelled',
  'stale',
] as const;
export type RetentionKey = (typeof RETENTION_KEYS)[number];

/** The states a job can be removed from, once its retention passed (in `JOB_STATES` order). */
export const RETENTION_STATES = [
  'succeeded',
  'failed',
  'cancelled',
  'dead_lettered',
  'stale',
] as const satisfies readonly JobState[];
export type RetentionState = (typeof RETENTION_STATES)[number];

/**
 * The setting that bounds how long a job in `state` is kept; null where a job is never removed:
 * it is still on its way (accepted, scheduled, queued, running) or waits for a person
 * (needs_review). Exhaustive over the states: a new state must say which it is.
 */
export function retentionKeyOf(state: JobState): RetentionKey | null {
  switch (state) {
    case 'succeeded':
      return 'succeeded';
    case 'failed':
      return 'failed';
    case 'dead_lettered':
      return 'deadLettered';
    case 'cancelled':
      return 'cancelled';
    case 'stale':
      return 'stale';
    case 'accepted':
    case 'scheduled':
    case 'queued':
    case 'running':
    case 'waiting':
    case 'needs_review':
      return null;
    default: {
      const never: never = state;
      throw new Error(`unknown job state ${String(never)}`);
    }
  }
}

/**
 * The built-in retention: a succeeded job's record matters while someone may still look at what
 * it produced (a week covers a weekend and a review cycle; its outputs are usually copied out by
 * then); a job that ended badly is what an investigation needs, so 30 days (a billing period, the
 * window most incident reviews and provider disputes fall in). `null` would mean forever.
 */
export const DEFAULT_RETENTION: Readonly<Record<RetentionKey, number | null>> = Object.freeze({
  succeeded: 7 * DAY,
  failed: 30 * DAY,
  deadLettered: 30 * DAY,
  cancelled: 30 * DAY,
  stale: 30 * DAY,
});

/** The longest retention that can be written (100 years): anything longer is `'forever'`. */
export const MAX_RETENTION_MS = 100 * 365 * DAY;

const UNIT_MS = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY, w: 7 * DAY } as const;
const DURATION = /^(\d{1,12})(ms|s|m|h|d|w)$/;
const DURATION_HELP =
  "a duration like '7d', '12h', '30m', '45s', '500ms' or '2w', a positive number of milliseconds, or 'forever'";

/** `'7d'` → 604 800 000; undefined when the text is not a duration. */
export function parseDurationMs(text: string): number | undefined {
  const m = DURATION.exec(text.trim());
  if (!m) return undefined;
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/**
 * One retention: milliseconds, a duration text, or `'forever'` (parsed: ms, or null for forever;
 * null is taken as forever too, so parsed settings parse again to themselves).
 */
export const RetentionDuration = z
  .union([z.number(), z.string(), z.null()], { error: DURATION_HELP })
  .transform((value, ctx): number | null => {
    if (value === 'forever' || value === null) return null;
    const ms = typeof value === 'number' ? value : parseDurationMs(value);
    if (ms === undefined || !Number.isSafeInteger(ms) || ms <= 0 || ms > MAX_RETENTION_MS) {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(value)} is not ${DURATION_HELP}` });
      return z.NEVER;
    }
    return ms;
  });

/** Retention per state; a state left out falls through to the next rule (tenant > kind > default). */
export const Retention = z
  .object({
    succeeded: RetentionDuration.optional(),
    failed: RetentionDuration.optional(),
    deadLettered: RetentionDuration.optional(),
    cancelled: RetentionDuration.optional(),
    stale: RetentionDuration.optional(),
  })
  .strict();
/** What a user writes: `{ succeeded: '7d', failed: 2_592_000_000, stale: 'forever' }`. */
export type RetentionInput = z.input<typeof Retention>;
/** Parsed: milliseconds per state, null for forever, absent where the next rule decides. */
export type Retention = z.output<typeof Retention>;

const KindName = z.string().refine(isJobKind, 'not a job kind (like "demo.summarize")');
const TenantName = z.string().refine(isTenantId, 'not a tenant id');

/**
 * The deployment's retention (`retention` in sluice.config.ts, the gateways' `retention` option):
 * the rules and how the sweeper runs. Every field optional.
 */
export const RetentionSettings = z
  .object({
    /** `false` turns the sweeper off (nothing is ever removed). Default true. */
    enabled: z.boolean().optional(),
    /** The rules for every kind and tenant without their own. */
    default: Retention.optional(),
    /** Per kind, over what the kind declares. */
    kinds: z.record(KindName, Retention).optional(),
    /** Per tenant, over everything else. */
    tenants: z.record(TenantName, Retention).optional(),
    /** Write each removed job as JSONL to the blob store before removing it. Default false. */
    archive: z.boolean().optional(),
    /** Jobs removed per batch (one transaction or D1 batch each). Default 500. */
    batchSize: z.number().int().min(1).max(5000).optional(),
    /** Pause between batches, so a sweep never holds the database for long. Default 200 ms. */
    pauseMs: z.number().int().min(0).max(60_000).optional(),
    /** How often a sweep starts (Node gateways). Default 5 minutes. */
    everyMs: z.number().int().min(1000).max(DAY).optional(),
    /** Batches per sweep at most; the next sweep goes on (bounds one sweep's time). Default 200. */
    maxBatches: z.number().int().min(1).max(1_000_000).optional(),
    /**
     * How long the operator audit log is kept. Default forever. At least a day: the log is pruned
     * by age, never emptied, so a record of what an operator just did cannot be swept away by a
     * setting.
     */
    audit: RetentionDuration.refine((ms) => ms === null || ms >= DAY, {
      message: 'the audit log is kept at least a day ("1d" or longer)',
    }).optional(),
  })
  .strict();
export type RetentionSettingsInput = z.input<typeof RetentionSettings>;
export type RetentionSettings = z.output<typeof RetentionSettings>;

/** zod's first issue as `field.path: message`, for INVALID_CONFIG errors that name the field. */
function invalidAt(field: string, error: z.ZodError): SluiceError {
  const issue = error.issues[0];
  const path = [field, ...(issue?.path ?? []).map(String)].filter((p) => p !== '').join('.');
  return new SluiceError('INVALID_CONFIG', `${path}: ${issue?.message ?? 'invalid'}`, {
    details: { field: path },
  });
}

/** Parses a kind's declared retention; throws INVALID_CONFIG naming the field (`retention.failed`). */
export function parseRetention(value: unknown, field = 'retention'): Retention {
  const r = Retention.safeParse(value);
  if (!r.success) throw invalidAt(field, r.error);
  return r.data;
}

/** Parses the deployment's retention settings; throws INVALID_CONFIG naming the field. */
export function parseRetentionSettings(value: unknown, field = 'retention'): RetentionSettings {
  const r = RetentionSettings.safeParse(value ?? {});
  if (!r.success) throw invalidAt(field, r.error);
  return r.data;
}

/** What the sweeper asks: how long a job is kept. Storage reads it; it reads no configuration. */
export interface RetentionPolicy {
  /** The states a job may be removed from (every other state is kept whatever its age). */
  readonly states: readonly JobState[];
  /** Milliseconds a job of `kind` in `state` is kept (of `tenantId` when given); null: forever. */
  keepMs(state: JobState, kind: string, tenantId?: string): number | null;
}

/**
 * The policy from the kinds' declarations (`{ kind: { retention } }`, a job registry fits) and
 * the deployment's settings. `decide` says which setting applies in a state (`retentionKeyOf`;
 * a test seam may swap it for a known-dangerous variant, never production code).
 */
export function createRetentionPolicy(
  kinds: Readonly<Record<string, { readonly retention?: Retention | undefined }>>,
  settings: RetentionSettings = {},
  decide: (state: JobState) => RetentionKey | null = retentionKeyOf,
): RetentionPolicy {
  const fallback = (key: RetentionKey, kind: string): number | null => {
    const configured = settings.kinds?.[kind]?.[key];
    if (configured !== undefined) return configured;
    const declared = kinds[kind]?.retention?.[key];
    if (declared !== undefined) return declared;
    const general = settings.default?.[key];
    return general !== undefined ? general : DEFAULT_RETENTION[key];
  };
  const states = JOB_STATES.filter((state) => decide(state) !== null);
  return {
    states,
    keepMs(state, kind, tenantId) {
      const key = decide(state);
      if (key === null) return null;
      const own = tenantId === undefined ? undefined : settings.tenants?.[tenantId]?.[key];
      return own !== undefined ? own : fallback(key, kind);
    },
  };
}
