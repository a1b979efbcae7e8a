// The asset protocol's decisions, pure and exhaustive (owner compared before anything is
// deleted or published): what an attempt
// does after each conditional step of the write, and what the staging sweeper does with one key.
// The I/O around them (asset-writer.ts, staging-sweeper.ts) only follows these answers, so the
// rules "a published key is reused, never rewritten" and "an attempt deletes only its own staging
// keys" are stated here once.

/** `claimAssetOwnership`'s answer. */
export type ClaimOutcome = 'owned' | 'published' | 'fenced';

/**
 * After the ownership row: `stage` streams the bytes to this attempt's staging key; `reuse`
 * returns the published asset without reading the body; `abort` means the attempt lost its job.
 */
export type ClaimPlan = 'stage' | 'reuse' | 'abort';

export function decideClaim(outcome: ClaimOutcome): ClaimPlan {
  switch (outcome) {
    case 'owned':
      return 'stage';
    case 'published':
      return 'reuse';
    case 'fenced':
      return 'abort';
  }
}

/** `checkPublishable`'s answer, in the publishing transaction. */
export type PublishCheck = 'ok' | 'published' | 'not_owner';

/**
 * In the publishing transaction: `publish` moves the staging blob to the final key
 * (write-if-absent) and inserts the row. Otherwise the attempt deletes its OWN staging key (never
 * the final key, which may be another attempt's finished work) and reuses, or aborts.
 */
export type PublishPlan =
  | { kind: 'publish' }
  | { kind: 'reuse'; deleteOwnStaging: true }
  | { kind: 'abort'; deleteOwnStaging: true };

export function decidePublish(check: PublishCheck): PublishPlan {
  switch (check) {
    case 'ok':
      return { kind: 'publish' };
    case 'published':
      return { kind: 'reuse', deleteOwnStaging: true };
    case 'not_owner':
      return { kind: 'abort', deleteOwnStaging: true };
  }
}

/** `BlobStore.publish`'s answer. */
export type PublishResult = 'published' | 'exists';

/**
 * After the write-if-absent: `insert` records the staged bytes (the staging key is gone, moved).
 * `adopt`: the final key was published by an attempt that crashed before its row; those bytes
 * are the asset (never overwritten): hash them, record them, delete our own staging key.
 */
export type AfterPublish =
  { kind: 'insert'; deleteOwnStaging: false } | { kind: 'adopt'; deleteOwnStaging: true };

export function decideAfterPublish(result: PublishResult): AfterPublish {
  switch (result) {
    case 'published':
      return { kind: 'insert', deleteOwnStaging: false };
    case 'exists':
      return { kind: 'adopt', deleteOwnStaging: true };
  }
}

/** The parts of a staging key (`staging/t/<tenant>/j/<job>/<attempt>/<token>`). */
export interface StagingKeyParts {
  tenantId: string;
  jobId: string;
  attemptId: string;
  token: string;
}

/** Undefined for anything that is not exactly a staging key (the sweeper leaves it alone). */
export function parseStagingKey(key: string): StagingKeyParts | undefined {
  const parts = key.split('/');
  if (parts.length !== 7) return undefined;
  const [staging, t, tenantId, j, jobId, attemptId, token] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (staging !== 'staging' || t !== 't' || j !== 'j') return undefined;
  if (!tenantId || !jobId || !attemptId || !token) return undefined;
  return { tenantId, jobId, attemptId, token };
}

export interface StagingFacts {
  stagingKey: string;
  /** The attempt that wrote the key (from the key itself). */
  attemptId: string;
  /** The job row: undefined when it is gone; `attemptId` null when no attempt is running. */
  job: { state: string; attemptId: string | null } | undefined;
  /** Staging keys named in ownership rows of the job's live attempt. */
  owned: ReadonlySet<string>;
}

export type SweepVerdict =
  | { action: 'keep'; why: 'owned' | 'live_attempt' }
  | { action: 'delete'; why: 'job_gone' | 'job_not_running' | 'attempt_dead' };

/**
 * A staging key is deleted only when the attempt that wrote it is dead: its job is gone, no
 * attempt is running, or another attempt runs now. A key a live attempt's ownership row names is
 * never touched. (Published blobs live under `t/…`, never under `staging/`: the sweeper never
 * sees them.)
 */
export function decideStagingSweep(f: StagingFacts): SweepVerdict {
  if (f.owned.has(f.stagingKey)) return { action: 'keep', why: 'owned' };
  if (f.job === undefined) return { action: 'delete', why: 'job_gone' };
  if (f.job.attemptId === null) return { action: 'delete', why: 'job_not_running' };
  if (f.job.attemptId === f.attemptId) return { action: 'keep', why: 'live_attempt' };
  return { action: 'delete', why: 'attempt_dead' };
}
