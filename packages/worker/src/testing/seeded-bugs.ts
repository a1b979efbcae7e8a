// Fault injection for tests only. Each seeded bug is one known-dangerous change, expressed as
// worker hooks (src/hooks.ts) that replace one decision with its dangerous variant; `npm run
// seeded-bugs` runs the tests that must catch each one with `SLUICE_SEEDED_BUG=<name>` and proves
// they turn red. Crash points: `CRASHPOINTS=name@n[,name@n]` makes the n-th hit of that point
// SIGKILL the process itself (no `finally`, no handlers, no flush: exactly an external
// `kill -9`); `name@n:stop` SIGSTOPs it instead, for zombie tests. Only test processes call
// `hooksFromEnv()`; production code never reads either variable.

import { routeByPrefix } from '@sluice/contracts';
import { loadSnapshots, type SluiceDatabase } from '@sluice/storage';
import { CRASH_POINTS, DEFAULT_HOOKS, resolveHooks, type WorkerHooks } from '../hooks.js';
import { checkThenSuspend } from './seeded-wait-bugs.js';

export const SEEDED_BUGS = [
  /** The delivery is acknowledged before the outcome is stored. */
  'ack-before-terminal',
  /** Asset publish and the staging sweep skip the ownership check. */
  'asset-skip-owner-check',
  /** A sync (ambiguous) provider call is retried automatically after an ambiguous failure. */
  'retry-ambiguous',
  /** A job on a version nobody serves runs on another served version of its kind. */
  'version-fallback',
  /** The unit pool drops a failed unit's error instead of failing the stage. */
  'pool-swallow-error',
  /** An attempt's progress is written after its terminal event instead of before it. */
  'progress-after-terminal',
  /** Claim renewal checks no owner (job rows: no epoch; a runtime package seeds its transport's variant). */
  'renew-unowned',
  /** A checkpoint is looked up by job only, ignoring the unit key. */
  'checkpoint-without-unit-key',
  /** A write takes the row as it is now instead of as the attempt read it (no fence). */
  'unfenced-write',
  /** Overlapping admissions hand their attempts over as their row reads return, not in read order. */
  'admit-out-of-order',
  /** A durable wait checks for a signal and suspends in two transactions (a lost wakeup). */
  'wait-check-then-suspend',
  /** A child is keyed by its parent's attempt: a retried parent starts a second child. */
  'child-key-per-attempt',
] as const;
export type SeededBug = (typeof SEEDED_BUGS)[number];

/** The hooks of one seeded bug (`database` is needed by the ones that read rows). */
export function seededHooks(bug: SeededBug, database?: SluiceDatabase): Partial<WorkerHooks> {
  switch (bug) {
    case 'ack-before-terminal':
      return {
        beforeOutcome: async (ack) => {
          await ack().catch(() => {});
        },
      };
    case 'asset-skip-owner-check':
      return {
        mayPublish: (answer) => answer !== 'published',
        decideStagingSweep: () => ({ action: 'delete', why: 'attempt_dead' }),
      };
    case 'retry-ambiguous':
      return {
        decideFromLedger: (rows, callClass) => {
          const plan = DEFAULT_HOOKS.decideFromLedger(rows, callClass);
          return plan.kind === 'review' && callClass === 'ambiguous'
            ? { kind: 'send', authorised: false }
            : plan;
        },
        decideRecovery: (f) => {
          const action = DEFAULT_HOOKS.decideRecovery(f);
          return action === 'needs_review' && f.callClass === 'ambiguous' ? 'retry' : action;
        },
      };
    case 'version-fallback':
      return {
        decideDelivery: (f) => {
          const route = f.pointer ? routeByPrefix(f.pointer.jobId, f.servedVersions) : undefined;
          const served =
            route && !route.ok && route.version
              ? [...f.servedVersions, route.version]
              : f.servedVersions;
          return DEFAULT_HOOKS.decideDelivery({ ...f, servedVersions: served });
        },
        handlerVersion: (version, served) => (served.includes(version) ? version : served[0]),
      };
    case 'pool-swallow-error':
      return {
        runPool: async (tasks, opts) =>
          DEFAULT_HOOKS.runPool(
            tasks.map((t) => ({ key: t.key, run: () => t.run().catch(() => undefined as never) })),
            opts,
          ),
      };
    case 'progress-after-terminal':
      return {
        buildWrite: (attempt, ctx, finish) => {
          const built = DEFAULT_HOOKS.buildWrite(attempt, ctx, finish);
          const events = [...built.write.events];
          if (finish && events.length > 1) {
            // The terminal event first, the queued progress after it (renumbered in that order).
            const end = events.pop() as (typeof events)[number];
            events.splice(attempt.runningEventStored ? 0 : 1, 0, end);
            events.forEach((e, i) => (e.seq = built.write.fence.lastSeq + 1 + i));
          }
          return { ...built, write: { ...built.write, events } };
        },
      };
    case 'renew-unowned':
      return {
        // Renews by job id alone, whatever epoch the row is at now.
        extendLeases: async (db, attempts, leaseMs, now) => {
          const rows = await db
            .selectFrom('jobs')
            .select(['id', 'epoch'])
            .where(
              'id',
              'in',
              attempts.map((a) => a.id),
            )
            .execute();
          return DEFAULT_HOOKS.extendLeases(
            db,
            rows.map((r) => ({ id: r.id, epoch: Number(r.epoch) })),
            leaseMs,
            now,
          );
        },
      };
    case 'checkpoint-without-unit-key':
      return { findCheckpoint: (stored) => stored.values().next().value };
    case 'admit-out-of-order':
      return { awaitTurn: async () => {} };
    case 'wait-check-then-suspend':
      return { registerWait: checkThenSuspend };
    case 'child-key-per-attempt':
      return { childKey: (key, attempt) => `${key}@${attempt.attemptId}` };
    case 'unfenced-write':
      return {
        beforeWrite: async (attempts) => {
          if (!database || attempts.length === 0) return;
          const rows = await loadSnapshots(
            database,
            attempts.map((a) => a.job.id),
          );
          for (const a of attempts) {
            const row = rows.get(a.job.id);
            if (row && (row.state === 'queued' || row.state === 'running'))
              a.fence = { epoch: row.epoch, lastSeq: row.lastSeq, state: row.state };
          }
        },
      };
  }
}

function parseSeededBug(raw: string | undefined): SeededBug | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!(SEEDED_BUGS as readonly string[]).includes(raw)) {
    // A typo must not silently mean "no bug": the run would count a miss as a pass elsewhere.
    throw new Error(`SLUICE_SEEDED_BUG: unknown seeded bug "${raw}"`);
  }
  return raw as SeededBug;
}

/** The seeded bug this test process runs with, if any. */
export function activeSeededBug(env = process.env): SeededBug | undefined {
  return parseSeededBug(env.SLUICE_SEEDED_BUG);
}

type Signal = 'SIGKILL' | 'SIGSTOP';

function crashAt(spec: string | undefined): WorkerHooks['at'] | undefined {
  const plan = new Map<string, { n: number; signal: Signal }>();
  for (const part of (spec ?? '').split(',')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const [name = '', rest = '1'] = trimmed.split('@');
    const [nth = '1', mode] = rest.split(':');
    const n = Number(nth);
    if (
      !(CRASH_POINTS as readonly string[]).includes(name) ||
      !Number.isInteger(n) ||
      n < 1 ||
      (mode !== undefined && mode !== 'stop')
    ) {
      // A typo must not silently mean "no crash": the matrix would pass without crashing.
      throw new Error(`CRASHPOINTS: unknown crash point or count "${trimmed}"`);
    }
    plan.set(name, { n, signal: mode === 'stop' ? 'SIGSTOP' : 'SIGKILL' });
  }
  if (plan.size === 0) return undefined;
  const hits = new Map<string, number>();
  return (name) => {
    const n = (hits.get(name) ?? 0) + 1;
    hits.set(name, n);
    const step = plan.get(name);
    if (step?.n === n) {
      process.stderr.write(`CRASHPOINT ${name}@${n}: ${step.signal}\n`);
      process.kill(process.pid, step.signal);
    }
  };
}

/** This test process's hooks: its seeded bug (SLUICE_SEEDED_BUG) and crash points (CRASHPOINTS). */
export function hooksFromEnv(database?: SluiceDatabase, env = process.env): Partial<WorkerHooks> {
  const bug = activeSeededBug(env);
  const at = crashAt(env.CRASHPOINTS);
  return { ...(bug ? seededHooks(bug, database) : {}), ...(at ? { at } : {}) };
}

/** Hooks for tests that call one decision directly (the real ones unless a bug is seeded). */
export function testHooks(database?: SluiceDatabase): WorkerHooks {
  return resolveHooks(hooksFromEnv(database));
}
