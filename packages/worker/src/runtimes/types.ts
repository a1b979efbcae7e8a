// The worker's public runtime types: what an adapter under `runtimes/` may depend on besides
// `@sluice/contracts` (an eslint rule keeps it so: a runtime could be written outside the repo).
// Each adapter states the narrowest store or client shape
// it needs here; the implementation over `@sluice/storage` or a Redis client lives outside.

import type { Delivery, JobState } from '@sluice/contracts';

/** A job a claim started, as the attempt runs it (the row at the attempt's new epoch). */
export interface ClaimedJob {
  readonly id: string;
  readonly tenantId: string;
  readonly kind: string;
  readonly version: string;
  readonly input: unknown;
  readonly fileIds: readonly string[];
  readonly maxAttempts: number;
  readonly epoch: number;
  readonly attempts: number;
  readonly attemptId: string | null;
  /** The row's last sequence number: the attempt's first event follows it. */
  readonly lastSeq: number;
  /** When the job became due (a retry's backoff end) and when it was accepted: dispatch→start. */
  readonly runAfter?: string | null | undefined;
  readonly createdAt?: string | undefined;
  /** W3C `traceparent` the job was submitted under. */
  readonly traceContext?: string | null | undefined;
}

/** A delivery whose claim already started its job (`capabilities.startsOnClaim`). */
export interface ClaimedDelivery extends Delivery {
  readonly claimed: {
    readonly job: ClaimedJob;
    /** Where the row came from: `queued`, or `running` (a lapsed or own lease). */
    readonly from: JobState;
  };
}

/** The hold a claim took on a job row: the epoch it started the row at. */
export interface EmbeddedLease {
  readonly jobId: string;
  readonly epoch: number;
}

/**
 * The subset of the jobs-table queue the embedded runtime uses. Owner, served versions and lease
 * length are bound by whoever builds it (see `createEmbeddedQueueStore`).
 */
export interface EmbeddedQueueStore {
  /** Starts up to `limit` due jobs; `includeOwn` also takes back running jobs this owner holds. */
  claim(
    limit: number,
    opts: { includeOwn: boolean; exclude: readonly string[] },
  ): Promise<ClaimedDelivery['claimed'][]>;
  /** Puts claimed jobs that never ran back in the queue (only where still held at that epoch). */
  unclaim(leases: readonly EmbeddedLease[], delayMs: number): Promise<void>;
  /** Resolves at the latest after `ms`, earlier when new jobs may have arrived. */
  waitForWork(ms: number, signal?: AbortSignal): Promise<void>;
  /** Announces the served versions for a while (the unroutable sweep and dispatch read them). */
  heartbeat(): Promise<void>;
  /** Withdraws the announcement (clean shutdown). */
  unregister(): Promise<void>;
  /** Stops listening for new work. */
  close?(): Promise<void>;
}

export interface EmbeddedDelivery extends ClaimedDelivery {
  readonly lease: EmbeddedLease;
}
