// The worker's public runtime types: what an adapter under `runtimes/` may depend on besides
// `@sluice/contracts` (STYLE.md rule 1). Each adapter states the narrowest store or client shape
// it needs here; the implementation over `@sluice/storage` or a Redis client lives outside.

import type { Delivery, MessagePointer } from '@sluice/contracts';

/** A lease on one queue row: the token is bumped by every claim (a fencing token). */
export interface EmbeddedLease {
  readonly jobId: string;
  readonly token: number;
}

export interface EmbeddedClaim {
  readonly pointer: MessagePointer;
  readonly token: number;
  readonly deliveries: number;
}

/**
 * The subset of the embedded lease queue the embedded runtime uses. Owner, served versions and
 * lease length are bound by whoever builds it (see `createEmbeddedQueueStore`).
 */
export interface EmbeddedQueueStore {
  /** Claims up to `limit` ready rows; `includeOwn` also takes back leases this owner still holds. */
  claim(limit: number, opts: { includeOwn: boolean }): Promise<EmbeddedClaim[]>;
  /** Extends leases still held under these tokens; resolves with the job ids renewed. */
  renew(leases: readonly EmbeddedLease[]): Promise<ReadonlySet<string>>;
  /**
   * Deletes rows, only under the holder's token; inside the job database transaction `tx` when
   * given (the terminal transaction: the rows go exactly when the outcome commits).
   */
  ack(leases: readonly EmbeddedLease[], tx?: unknown): Promise<void>;
  /** Gives rows back; claimable again after `delayMs`. */
  release(leases: readonly EmbeddedLease[], delayMs: number): Promise<void>;
  /** Announces the served versions for a while (the unroutable sweep and dispatch read them). */
  heartbeat(): Promise<void>;
  /** Withdraws the announcement (clean shutdown). */
  unregister(): Promise<void>;
}

export interface EmbeddedDelivery extends Delivery {
  readonly lease: EmbeddedLease;
}
