// The gateway's test seams, injected like the worker's (packages/worker/src/hooks.ts): named
// points where a crash-point test stops the work in flight, and decisions a fault-injection run
// swaps for a known-dangerous variant to prove the tests catch it.
// Production passes nothing and gets the real decisions; no environment variable or test name
// is read here, and the dangerous variants live under `src/testing/` only.

import type { Db } from '@sluice/storage/portable';
import {
  hasScope,
  retentionKeyOf,
  type ApiKeyScope,
  type JobState,
  type RetentionKey,
  type TokenStatus,
} from '@sluice/contracts';
import { decideFlow } from './flow/decide-flow.js';

/** How a call arrived: plain HTTP (queries, mutations, SSE subscriptions) or a WebSocket. */
export type Transport = 'http' | 'ws';

/** Every crash point the gateway has. */
export const GATEWAY_CRASH_POINTS = [
  /** A cancel committed (one job's, a bulk batch's, a singleton's cancel-older); nothing after it ran. */
  'after-cancel-commit',
] as const;
export type GatewayCrashPoint = (typeof GATEWAY_CRASH_POINTS)[number];

export interface GatewayHooks {
  /** Called at every crash point (a crash-point test throws or kills the process here). */
  at(point: GatewayCrashPoint): void;
  /** Whether a key holding `granted` may call a procedure that declares `required`. */
  scopeHeld(
    granted: readonly ApiKeyScope[],
    required: ApiKeyScope,
    call: {
      type: 'query' | 'mutation' | 'subscription' | 'upload' | 'download' | 'metrics' | 'route';
      transport: Transport;
    },
  ): boolean;
  /** Whether an open stream ends when its key is found revoked or expired. */
  endsStream(transport: Transport): boolean;
  /** Which retention setting removes a job in `state` (null: never removed). */
  retentionKey(state: JobState): RetentionKey | null;
  /** What a flow-controlled submit does with its key (debounce, singleton, batch). */
  decideFlow: typeof decideFlow;
  /** Whether an approval token in `status` may still complete its wait (only `open`). */
  tokenUsable(status: TokenStatus): boolean;
  /**
   * Inside a rerun's transaction, once its checkpoints are dropped (`units`: the ones that run
   * again; empty: none dropped). Production does nothing; a seeded bug forgets the ledger here,
   * to prove the ledger is what keeps a rerun from paying for a call twice.
   */
  onRerun(tx: Db, rerun: { jobId: string; units: readonly string[] }): Promise<void>;
  /**
   * Stores a bulk batch's progress (its cursor and counts, fenced by the lease) with `write`,
   * given the batch's transaction `tx` and the plain database `db`. Production writes it in `tx`:
   * the batch lands with its progress or not at all. A seeded bug writes it on `db` (committed
   * before the batch is), to prove a killed gateway's resume test catches a skipped batch.
   */
  storeBulkProgress(tx: Db, db: Db, write: (on: Db) => Promise<boolean>): Promise<boolean>;
}

export const DEFAULT_GATEWAY_HOOKS: GatewayHooks = {
  at: () => {},
  scopeHeld: (granted, required) => hasScope(granted, required),
  endsStream: () => true,
  retentionKey: retentionKeyOf,
  decideFlow,
  tokenUsable: (status) => status === 'open',
  onRerun: async () => {},
  storeBulkProgress: (tx, _db, write) => write(tx),
};

export function resolveGatewayHooks(partial: Partial<GatewayHooks> = {}): GatewayHooks {
  return { ...DEFAULT_GATEWAY_HOOKS, ...partial };
}
