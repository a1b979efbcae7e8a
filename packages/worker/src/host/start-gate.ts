// Start limits: before an attempt runs its handler it enters the gate, which takes the
// job's room under every start limit of its kind — a slot of each `maxRunning` semaphore (held
// until the attempt ends, renewed while it runs) and a token of each `startsPerSecond` bucket —
// in the job database, so every worker of every runtime shares the same counters (storage
// repos/limits.ts, the provider guard's machinery). With no room the attempt does not run: the
// host stores a limit hold (the attempt refunded, the job `queued` again after a delay, `waiting`
// naming the limit). Order: every slot first, then the tokens, so a held job burns no rate; a
// token taken before a later scope's bucket refused is spent (the rate of that scope then runs
// below its cap, never above).
//
// Waiting lists: where the job table is the queue (`startsOnClaim`), a job held for a slot is due
// only at a long backstop (`START_WAIT_BACKSTOP_MS`): the claim passes it by instead of claiming
// and holding it again every hold delay while the slot stays taken. Giving a slot back makes the
// key's next waiters due at once (storage `wakeWaiters`: as many as it has free slots, priority
// then age, in the release's own transaction), and a hold, once stored, re-checks the count: a
// slot freed between the refusal and the stored hold found no waiter, so the holder wakes the
// list itself; a slot that lapsed with its holder is dropped, and its list woken, by the next
// renewal round. Elsewhere (a transport brings a held job back through its own delayed path) the
// hold keeps its back-off delay. A rate hold always keeps its timed delay: its room returns with
// time, not with a release.
//
// Scopes and their counter keys: start-scopes.ts. Limits are the deployment's config
// (`limits.kinds`) where it names the kind, else declared.

import {
  LimitHeldError,
  limitsAnything,
  parseError,
  type JobLimits,
  type JobRegistry,
  type JobWaiting,
  type KindLimits,
} from '@sluice/contracts';
import {
  acquireSlot,
  lapsedSlotKeys,
  releaseSlot,
  renewSlots,
  takeToken,
  wakeWaiters,
  type SluiceDatabase,
  type WaitingList,
} from '@sluice/storage/d1';
import type { AttemptJob } from '../attempt/attempt.js';
import { listOfKey, scopesOf, type Scope } from './start-scopes.js';
import type { Outcome } from '../attempt/decide-outcome.js';
import type { LimitObserver } from '../guard/provider-limiter.js';

/** How soon a job held by a `maxRunning` limit is due again after its first hold (default). */
export const START_HOLD_MS = 1_000;
/** The longest a job held by a `maxRunning` limit waits before it is due again (default). */
export const START_HOLD_MAX_MS = 5_000;
/**
 * When a job on a waiting list is due without a wake (default): what a lost wake costs (a crash
 * between a release and its wake, a slot that lapsed with its holder), and how often a job whose
 * slot stays taken is claimed and held again.
 */
export const START_WAIT_BACKSTOP_MS = 60_000;

/**
 * The delay of a `maxRunning` hold: as long as the job has waited already (since the first hold
 * by the same limit), at least `baseMs` and at most `maxMs`. Every due time is a claim and a hold
 * write of a job that most likely still cannot start: a job held by a slot that stays taken is
 * claimed about log2(t / baseMs) times until the delay reaches `maxMs` and then every `maxMs`
 * (9 times in 30 s with the defaults), not every `baseMs` (30 times). A job held briefly is due
 * again as soon as before; a freed slot waits for the next due held job, which with many held
 * jobs is soon, and with one held job at most `maxMs`.
 */
export function holdDelayMs(since: string, now: number, baseMs: number, maxMs: number): number {
  const waited = now - Date.parse(since);
  const delay = Number.isFinite(waited) ? Math.max(baseMs, waited) : baseMs;
  return Math.min(Math.max(baseMs, maxMs), delay);
}

export interface GateEntry {
  /** Gives back the slots the job holds (idempotent). */
  release(): Promise<void>;
}

export type GateAnswer =
  | { ok: true; entry: GateEntry }
  | {
      ok: false;
      waiting: JobWaiting;
      retryAfterMs: number;
      /** The waiting list the hold puts the job on: re-check it once the hold is stored. */
      list?: WaitingList | undefined;
    };

export interface StartGate {
  /**
   * Takes the job's room, or answers the hold. `lists`: a slot hold waits on the key's waiting
   * list (backstop delay, woken by a release), for a runtime whose claim reads the job row's due
   * time; without it, the back-off delay.
   */
  enter(job: AttemptJob, now?: number, lists?: boolean): Promise<GateAnswer>;
  /** After a list hold is stored: wakes the list if a slot freed meanwhile. */
  waited(list: WaitingList): Promise<void>;
  /**
   * Pushes the expiry of every slot held by a running attempt (the host calls it on a timer);
   * with waiting lists, also drops lapsed slots and wakes their keys' lists.
   */
  renew(now?: number): Promise<void>;
}

/** What an attempt held at the gate stores: a retry that refunds it and names the limit. */
export function holdOutcome(waiting: JobWaiting, retryAfterMs: number): Outcome {
  const error = new LimitHeldError(
    `start limit of ${waiting.reason} "${waiting.name}" reached; the job waits`,
    retryAfterMs,
    waiting,
  );
  return {
    kind: 'retry',
    error: parseError(error),
    delayMs: retryAfterMs,
    reason: 'LIMITED',
    refund: true,
    waiting,
  };
}

/** Kind → limits: the config's entry, else the declaration; kinds that cap nothing are left out. */
export function resolveKindLimits(
  jobs: JobRegistry,
  config: KindLimits = {},
): Map<string, JobLimits> {
  const out = new Map<string, JobLimits>();
  for (const def of Object.values(jobs)) {
    const limits = config[def.kind] ?? def.limits;
    if (limitsAnything(limits)) out.set(def.kind, limits as JobLimits);
  }
  for (const [kind, limits] of Object.entries(config))
    if (limitsAnything(limits)) out.set(kind, limits);
  return out;
}

export function createStartGate(deps: {
  database: SluiceDatabase;
  limits: ReadonlyMap<string, JobLimits>;
  /** How long a slot lives without renewal (the host renews well within it). */
  slotTtlMs: number;
  /** Delay before a job held by `maxRunning` is due again (default `START_HOLD_MS`). */
  holdMs?: number | undefined;
  /** The longest delay of a `maxRunning` hold as the wait grows (default `START_HOLD_MAX_MS`). */
  holdMaxMs?: number | undefined;
  /** The due delay of a hold on a waiting list (default `START_WAIT_BACKSTOP_MS`). */
  waitBackstopMs?: number | undefined;
  observer?: LimitObserver | undefined;
}): StartGate {
  const { database } = deps;
  // Holder ids of the slots running attempts hold (renewed together).
  const held = new Set<string>();
  const noop: GateEntry = { release: async () => {} };
  // Set by the first `enter` with lists: one gate serves one worker, so one runtime.
  let usesLists = false;

  function listOf(scope: Scope, max: number): WaitingList {
    return { key: scope.key, reason: scope.reason, name: scope.name, max };
  }

  function hold(
    job: AttemptJob,
    scope: Scope,
    by: JobWaiting['by'],
    now: number,
    list?: WaitingList,
  ): GateAnswer {
    deps.observer?.waited(scope.label);
    const prior = job.waiting;
    const since =
      prior && prior.reason === scope.reason && prior.name === scope.name
        ? prior.since
        : new Date(now).toISOString();
    const rate = scope.limit.startsPerSecond;
    // A rate hold is due when the bucket has a token again: that time is known, no back-off.
    const retryAfterMs =
      by === 'rate' && rate !== undefined
        ? Math.max(20, Math.ceil(1000 / rate))
        : list
          ? (deps.waitBackstopMs ?? START_WAIT_BACKSTOP_MS)
          : holdDelayMs(
              since,
              now,
              deps.holdMs ?? START_HOLD_MS,
              deps.holdMaxMs ?? START_HOLD_MAX_MS,
            );
    return {
      ok: false,
      waiting: { reason: scope.reason, name: scope.name, by, since },
      retryAfterMs,
      list,
    };
  }

  return {
    async enter(job, now = Date.now(), lists = false) {
      usesLists ||= lists;
      const limits = deps.limits.get(job.kind);
      if (!limits) return { ok: true, entry: noop };
      const scopes = scopesOf(job, limits);
      // One holder per job: a second attempt of the same job (a reclaim) re-takes its own slot.
      const holder = `job:${job.id}`;
      const taken: WaitingList[] = [];
      // With lists, every slot given back wakes its key's waiters, a refused later scope's too:
      // a job may have been held by the slot this job took for a moment.
      const giveBack = async () => {
        held.delete(holder);
        await Promise.all(
          taken.map((list) =>
            lists ? wakeWaiters(database, list, holder) : releaseSlot(database, list.key, holder),
          ),
        );
      };
      for (const scope of scopes) {
        const max = scope.limit.maxRunning;
        if (max === undefined) continue;
        const ok = await acquireSlot(database, {
          key: scope.key,
          holder,
          max,
          ttlMs: deps.slotTtlMs,
          now,
        });
        if (!ok) {
          await giveBack();
          return hold(job, scope, 'concurrency', now, lists ? listOf(scope, max) : undefined);
        }
        taken.push(listOf(scope, max));
      }
      for (const scope of scopes) {
        const perSecond = scope.limit.startsPerSecond;
        if (perSecond === undefined) continue;
        if (!(await takeToken(database, { key: `${scope.key}:starts`, perSecond, now }))) {
          await giveBack();
          return hold(job, scope, 'rate', now);
        }
      }
      if (taken.length === 0) return { ok: true, entry: noop };
      held.add(holder);
      let released = false;
      return {
        ok: true,
        entry: {
          release: async () => {
            if (released) return;
            released = true;
            await giveBack();
          },
        },
      };
    },
    async waited(list) {
      await wakeWaiters(database, list);
    },
    async renew(now = Date.now()) {
      await renewSlots(database, [...held], now + deps.slotTtlMs);
      if (!usesLists) return;
      // A slot that lapsed was never released, so its waiters were never woken: without this
      // they would wait for the backstop.
      for (const key of await lapsedSlotKeys(database, now)) {
        const list = listOfKey(key, deps.limits);
        if (list) await wakeWaiters(database, list, null, now);
      }
    },
  };
}
