// One retention pass under the database's named lock, so one replica at a time removes (the
// Node gateway's timer and the Workers gateway's cron trigger both come here). The lock is
// taken for a short lease and renewed before every batch; a replica that loses it (paused past
// the lease, say) stops after the batch it is in and leaves the rest to the holder. Runtime-
// neutral: no Node module, so the Workers gateway runs the same code.

import {
  createRetentionPolicy,
  parseRetentionSettings,
  retentionKeyOf,
  type JobRegistry,
  type JobState,
  type RetentionKey,
  type RetentionPolicy,
  type RetentionSettings,
  type RetentionSettingsInput,
} from '@sluice/contracts';
import {
  acquireLock,
  pruneAuditOlderThan,
  releaseLock,
  sweepRetention,
  type BlobStore,
  type RetentionHooks,
  type RetentionPassResult,
  type SluiceDatabase,
} from '@sluice/storage/portable';

export const RETENTION_LOCK = 'retention';

/** The deployment's retention, parsed (INVALID_CONFIG naming the field) and resolved. */
export interface ResolvedRetention {
  settings: RetentionSettings;
  policy: RetentionPolicy;
}

export function resolveRetention(
  jobs: JobRegistry,
  input: RetentionSettingsInput | undefined,
  decide: (state: JobState) => RetentionKey | null = retentionKeyOf,
): ResolvedRetention {
  const settings = parseRetentionSettings(input ?? {});
  return { settings, policy: createRetentionPolicy(jobs, settings, decide) };
}

export interface RetentionPassOptions {
  database: SluiceDatabase;
  blobs: BlobStore | undefined;
  retention: ResolvedRetention;
  /** This replica's lock owner name. */
  owner: string;
  /** The lock's lease, renewed before each batch (default 60 s). */
  lockTtlMs?: number | undefined;
  /** Defaults of this gateway where the settings leave them out (a Worker's are smaller). */
  defaults?: { batchSize?: number; maxBatches?: number; pauseMs?: number } | undefined;
  now?: number | undefined;
  /** Batches skip their pause while even the least overdue job is this late (sweep-retention). */
  catchUpAfterMs?: number | undefined;
  /** Asked before each batch, with the lock: true ends the pass (shutdown). */
  closing?: (() => boolean) | undefined;
  hooks?: RetentionHooks | undefined;
}

/** A pass's jobs and blobs, and the audit rows older than `retention.audit` it removed. */
export type RetentionPass = RetentionPassResult & { auditRows: number };

/** The pass's result, or undefined when another replica holds the lock (or retention is off). */
export async function runRetentionPass(
  opts: RetentionPassOptions,
): Promise<RetentionPass | undefined> {
  const { database, retention, owner } = opts;
  const { settings } = retention;
  if (settings.enabled === false) return undefined;
  const db = database.db;
  const ttl = opts.lockTtlMs ?? 60_000;
  if (!(await acquireLock(db, RETENTION_LOCK, owner, ttl))) return undefined;
  try {
    const pass = await sweepRetention({
      database,
      blobs: opts.blobs,
      policy: retention.policy,
      archive: settings.archive ?? false,
      batchSize: settings.batchSize ?? opts.defaults?.batchSize,
      maxBatches: settings.maxBatches ?? opts.defaults?.maxBatches,
      pauseMs: settings.pauseMs ?? opts.defaults?.pauseMs,
      catchUpAfterMs: opts.catchUpAfterMs,
      now: opts.now,
      hooks: opts.hooks,
      stop: async () =>
        opts.closing?.() === true || !(await acquireLock(db, RETENTION_LOCK, owner, ttl)),
    });
    const keepAudit = settings.audit ?? null;
    const auditRows =
      keepAudit === null || opts.closing?.() === true
        ? 0
        : await pruneAuditOlderThan(db, keepAudit, RETENTION_LOCK, opts.now ?? Date.now());
    return { ...pass, auditRows };
  } finally {
    await releaseLock(db, RETENTION_LOCK, owner).catch(() => {});
  }
}
