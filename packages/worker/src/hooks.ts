// The worker's test seams, injected (as Hono injects its router): named points where a
// crash-point test kills or freezes the process, and the decisions a fault-injection run swaps
// for a known-dangerous variant to prove the tests catch it. Production passes nothing and gets
// the real decisions and no-op points; no environment variable or test name is read here, and
// the dangerous variants live under `src/testing/` only.

import { decideRecovery, type Delivery } from '@sluice/contracts';
import { extendLeases, registerWait, type UnitCheckpoint } from '@sluice/storage/d1';
import type { Attempt } from './attempt/attempt.js';
import { runPool } from './attempt/pool.js';
import { decideStagingSweep } from './assets/decide-asset.js';
import { decideFromLedger } from './guard/decide-from-ledger.js';
import { decideDelivery } from './host/decide-delivery.js';
import { buildWrite } from './writers/build-write.js';

/** Every crash point the worker has, in the order an attempt passes them. */
export const CRASH_POINTS = [
  /** The attempt was admitted (claimed), nothing of its own is written yet. */
  'after-claim',
  /** The ledger row of a provider call is committed; nothing was sent. */
  'after-call-intent',
  /** The request was handed to the socket; no answer yet (the provider may still commit). */
  'after-request-sent',
  /** A pollable call's external id is recorded; polling has not started. */
  'after-external-id',
  /** The provider's answer is in the ledger; the unit checkpoint is not stored yet. */
  'after-call-outcome',
  /** An asset's bytes are in this attempt's staging key; nothing is published yet. */
  'after-blob-write-before-publish',
  /** The staging blob is published at the final key; the asset row is not committed. */
  'after-publish-before-row',
  /** A unit's checkpoint is stored. */
  'after-unit-checkpoint',
  /** finalize returned; its output is not stored yet (a retry runs finalize again). */
  'during-finalize',
  /** The outcome is decided; its write has not started (the delivery must still be unacked). */
  'before-outcome-write',
  /** The outcome write committed; the delivery is not acknowledged yet. */
  'after-terminal-before-ack',
  /** A child job's insert committed; nothing of the parent after it is stored. */
  'after-child-start',
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export interface WorkerHooks {
  /** Called at every crash point (a crash-point test SIGKILLs or SIGSTOPs the process here). */
  at(point: CrashPoint): void;
  decideDelivery: typeof decideDelivery;
  decideFromLedger: typeof decideFromLedger;
  decideRecovery: typeof decideRecovery;
  decideStagingSweep: typeof decideStagingSweep;
  runPool: typeof runPool;
  buildWrite: typeof buildWrite;
  /** Job-row lease renewal, by job AND epoch (the host's renewal round). */
  extendLeases: typeof extendLeases;
  /** Which version's handler runs a job of `version` (the exact one; never another). */
  handlerVersion(version: string, served: readonly string[]): string | undefined;
  /** A step's stored checkpoint (by job AND step name). */
  findCheckpoint(
    stored: ReadonlyMap<string, UnitCheckpoint>,
    name: string,
  ): UnitCheckpoint | undefined;
  /** Whether the publish check's answer lets this attempt publish (only `ok` does). */
  mayPublish(answer: 'ok' | 'not_owner' | 'published'): boolean;
  /** Before an outcome write is queued; `ack` finishes the delivery (nothing calls it). */
  beforeOutcome(ack: () => Promise<void>): Promise<void>;
  /** Before a group write: the attempts in it, as they are fenced. */
  beforeWrite(attempts: readonly Attempt[]): Promise<void>;
  /**
   * An admitted batch's turn to hand its attempts to the runner: `previous` settles once the
   * batch read before it has handed over (read order).
   */
  awaitTurn(previous: Promise<void>): Promise<void>;
  /** Before a read batch is admitted (none by default: nothing is awaited per batch). */
  beforeAdmit?: ((deliveries: readonly Delivery[]) => Promise<void>) | undefined;
  /** A durable wait's write-then-check-or-suspend (ONE transaction under the job's lock). */
  registerWait: typeof registerWait;
  /** The key a child is started under in its parent (the child's key; never per attempt). */
  childKey(key: string, attempt: { attemptId: string }): string;
}

export const DEFAULT_HOOKS: WorkerHooks = Object.freeze<WorkerHooks>({
  at: () => {},
  decideDelivery,
  decideFromLedger,
  decideRecovery,
  decideStagingSweep,
  runPool,
  buildWrite,
  extendLeases,
  handlerVersion: (version, served) => (served.includes(version) ? version : undefined),
  findCheckpoint: (stored, name) => stored.get(name),
  mayPublish: (answer) => answer === 'ok',
  beforeOutcome: async () => {},
  beforeWrite: async () => {},
  awaitTurn: (previous) => previous,
  registerWait,
  childKey: (key) => key,
});

export function resolveHooks(hooks: Partial<WorkerHooks> | undefined): WorkerHooks {
  return hooks ? { ...DEFAULT_HOOKS, ...hooks } : DEFAULT_HOOKS;
}
