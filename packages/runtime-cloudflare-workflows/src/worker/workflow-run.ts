// One job run as one Workflow instance: the stage runner with its step seam bound to `step.do`.
//
// Everything durable happens inside a step with a deterministic name, so a replay (the engine
// re-runs `run()` from the top after a crash or a pause) returns stored results instead of doing
// the work again: `sluice:due` (a delayed job sleeps until its due time), `sluice:start` (queued
// or scheduled → running at a new epoch, the `running` event),
// `stage:prepare`, `unit:<key>`, `stage:apply`, `stage:finalize`, then `sluice:outcome`. A step writes
// the events it queued (progress, `unit_done`) before it returns, fenced by the attempt's epoch
// (storage `writeAttempts`: one D1 batch), so events land in order and before the terminal one.
// Code outside steps only reads: the job row is read again on every replay, and a row that moved
// on (cancelled, taken over) ends the run without a write. Reads and writes go through the run's
// job store (job-store.ts: D1, or the Node gateway that dispatched the job); the fence is the
// store's, so a refused write is the same end either way.
//
// Errors: a step whose error the outcome table would retry is thrown as it is (the engine retries
// the step, with the job's attempt budget as its limit); any other (needs_review, non-retriable,
// stale, a fenced write) is thrown as the engine's NonRetryableError by its plain name, so a
// call that may have been billed is never repeated by the engine. The original error is kept
// here (the engine keeps only a message) and decides the stored outcome.

import { MessagePointer, NonRetriableError, type RuntimeCapabilities } from '@sluice/contracts';
import { isoNow, type BlobStore } from '@sluice/storage/d1';
import {
  type Attempt,
  classifyError,
  createAttempt,
  createAttemptAssets,
  createJobFiles,
  createProviderGuard,
  createStep,
  decideOutcome,
  DEFAULT_HOOKS,
  type Outcome,
  type ProviderLimiter,
  type ResolvedHandlers,
  runStages,
  sendFetch,
  type SendRequest,
  type WorkerHooks,
  type WorkerLogger,
} from '@sluice/worker/platform';
import type {
  QueueLike,
  WorkflowEventLike,
  WorkflowStepConfig,
  WorkflowStepLike,
} from '../platform.js';
import { deadLetter, type DeadLetterMessage } from './dead-letter.js';
import { assertStepResultFits, engineAbortIn, isEngineAbort } from './engine-protocol.js';
import type { RunJobStore } from './job-store.js';
import { createRunWriter } from './run-writer.js';
import { deliveryOf, startAttempt, type Started } from './run-start.js';

export interface WorkflowRunDeps {
  /** Where the job row, its ledger and its writes live (job-store.ts). */
  store: RunJobStore;
  handlers: ResolvedHandlers;
  /** The one version this Workflow class serves (`v1`): a job of another is never run here. */
  version: string;
  capabilities: RuntimeCapabilities;
  blobs?: BlobStore | undefined;
  deadLetters?: QueueLike<DeadLetterMessage> | undefined;
  logger: WorkerLogger;
  /** Config of every unit, stage and outcome step (the job's attempt budget caps its retries). */
  stepConfig: (maxAttempts: number) => WorkflowStepConfig;
  /** The engine's NonRetryableError (`cloudflare:workflows`); injected so this file has no import of it. */
  nonRetryable(message: string): Error;
  send?: SendRequest | undefined;
  /** Shared provider limits (counters in the store's database); absent when none is declared. */
  limiter?: ProviderLimiter | undefined;
  unitConcurrency?: number | undefined;
  hooks?: WorkerHooks | undefined;
  /** Lease owner written while the instance runs (informational: the epoch fences). */
  owner?: string | undefined;
}

/** The instance's output: small on purpose (the job's output is in D1). */
export interface WorkflowRunResult {
  jobId: string;
  state: string;
}

/**
 * The runtime's own steps. Job code's `ctx.step(name)` shares the engine's step namespace, so
 * these carry a prefix job code may not use (a job step named `start` would otherwise be
 * answered with this run's start record).
 */
export const RUNTIME_STEPS = {
  /** A delayed job's sleep until its due time (`runAt` in the params), before `start`. */
  due: 'sluice:due',
  start: 'sluice:start',
  deadLetter: 'sluice:dead-letter',
  outcome: 'sluice:outcome',
} as const;
const RESERVED_PREFIX = 'sluice:';

const LEASE_MS = 15 * 60_000;
const START_CONFIG: WorkflowStepConfig = {
  retries: { limit: 5, delay: 200, backoff: 'exponential' },
};

export async function runWorkflowJob(
  deps: WorkflowRunDeps,
  event: WorkflowEventLike,
  step: WorkflowStepLike,
): Promise<WorkflowRunResult> {
  const parsed = MessagePointer.safeParse(event.payload);
  if (!parsed.success || parsed.data.jobId !== event.instanceId) {
    // Nothing names a job we could write to: end without retrying (a retry reads the same params).
    throw deps.nonRetryable(
      `instance ${event.instanceId}: params are not this job's pointer ({ jobId, kind, version, tenantId })`,
    );
  }
  const pointer = parsed.data;
  const { store } = deps;
  const hooks = deps.hooks ?? DEFAULT_HOOKS;
  // Only the job's own version runs it: never a silent fallback to another one.
  const served = hooks.handlerVersion(pointer.version, deps.handlers.versionsOf(pointer.kind));
  const handler =
    served === deps.version ? deps.handlers.get(pointer.kind, pointer.version) : undefined;
  if (!handler) {
    const detail = `${pointer.kind} ${pointer.version} is not served by the ${deps.version} Workflow`;
    await step.do(RUNTIME_STEPS.deadLetter, START_CONFIG, () =>
      deadLetter(deps, pointer, 'VERSION_NOT_ROUTABLE', detail),
    );
    throw deps.nonRetryable(`${pointer.jobId}: dead-lettered VERSION_NOT_ROUTABLE (${detail})`);
  }

  // A delayed job (`delaysInRun`): the instance was created at submit and waits here, durably.
  // Its start step finds the row `scheduled` (or `cancelled`: the run then ends without a write).
  // Always the same steps for the same params (a replay after the due time returns at once).
  if (pointer.runAt !== undefined) {
    await step.sleepUntil(RUNTIME_STEPS.due, Date.parse(pointer.runAt));
  }
  const started = await step.do<Started>(RUNTIME_STEPS.start, START_CONFIG, () =>
    startAttempt(store, pointer, writeContext(deps)),
  );
  if (started.kind === 'skip') return { jobId: pointer.jobId, state: started.state };

  // Every (re)play: where the row stands now. Another epoch or state means it is not ours.
  const snap = await store.snapshot(pointer);
  if (!snap || snap.epoch !== started.epoch || snap.state !== 'running') {
    return { jobId: pointer.jobId, state: snap?.state ?? 'missing' };
  }
  const attempt = createAttempt({
    delivery: deliveryOf(pointer),
    job: { ...snap, attemptId: started.attemptId },
    fence: { epoch: snap.epoch, lastSeq: snap.lastSeq, state: 'running' },
    started: true,
    startFrom: 'queued',
  });
  attempt.runningEventStored = true;
  attempt.startedAt = isoNow();
  const job = attempt.job;
  const writer = createRunWriter({
    store,
    attempt,
    pointer,
    context: () => writeContext(deps),
    deadLetters: deps.deadLetters,
  });
  const { lost, persist, storeTerminal } = writer;
  /** The original error of each step that failed (the engine passes on only a message). */
  const failures = new Map<string, unknown>();
  const config = deps.stepConfig(job.maxAttempts);
  const platformStep = <T>(name: string, fn: () => Promise<T>): Promise<T> =>
    name.startsWith(RESERVED_PREFIX)
      ? Promise.reject(
          new NonRetriableError(
            `step name "${name}": the "${RESERVED_PREFIX}" prefix is Sluice's own`,
          ),
        )
      : step
          .do(name, config, async () => {
            try {
              const value = await fn();
              assertStepResultFits(name, value);
              await persist(); // what the step queued lands before the step counts as done
              return value;
            } catch (error) {
              failures.set(name, error);
              if (attempt.fenced) throw deps.nonRetryable(`${name}: ${messageOf(error)}`);
              if (classifyError(error) === 'retriable') throw error; // the engine retries the step
              // The end of the job, stored before the step throws: once a step throws
              // NonRetryableError the engine may abort the instance (the local one does), so no
              // later step can be relied on to store it. Sibling units are stopped; their writes
              // are fenced by the terminal state.
              await storeTerminal(decideFor(attempt, { ok: false, error }));
              throw deps.nonRetryable(`${name}: ${messageOf(error)}`);
            }
          })
          .catch((error: unknown) => {
            // The engine unwinding this run (pause, terminate, restart) must reach it unchanged.
            if (isEngineAbort(error)) throw error;
            throw failures.get(name) ?? error;
          });

  // Asset and file rows live next to the blob store (D1); a store without them refuses both.
  const blobs = store.database ? deps.blobs : undefined;
  const assets = createAttemptAssets({
    database: store.database as NonNullable<typeof store.database>,
    blobs,
    job,
    signal: attempt.controller.signal,
    onFenced: () => void lost(),
    hooks,
    logger: deps.logger,
  });
  const providers = createProviderGuard({
    ledger: store.ledger,
    job,
    declarations: handler.job.providers,
    send: deps.send ?? sendFetch,
    limiter: deps.limiter,
    signal: attempt.controller.signal,
    logger: deps.logger,
    onFenced: () => void lost(),
    hooks,
  });
  let outcome: Outcome;
  try {
    const output = await runStages({
      handler,
      job,
      signal: attempt.controller.signal,
      events: {
        push(e) {
          attempt.pending.events.push({ ...e, at: isoNow() });
        },
      },
      step: createStep({ capabilities: deps.capabilities, platformStep }),
      capabilities: deps.capabilities,
      providers,
      assets,
      files: createJobFiles({
        database: store.database as NonNullable<typeof store.database>,
        blobs,
        tenantId: job.tenantId,
        fileIds: job.fileIds,
      }),
      unitConcurrency: deps.unitConcurrency,
      hooks,
    });
    outcome = decideFor(attempt, { ok: true, output });
  } catch (error) {
    if (attempt.fenced) await attempt.fenceSettled; // cancelled, or taken over: know which
    const abort = engineAbortIn(error);
    if (abort) {
      // The engine is interrupting this run (measured: a pause pending while a step fails
      // rejects the step with it at once) and replays it later, retrying the step. Deciding
      // now would end a job that is not over: nothing is written, the abort goes back as it is.
      throw abort;
    }
    outcome = decideFor(attempt, { ok: false, error });
  }
  if (writer.terminal !== undefined) {
    throw deps.nonRetryable(`${job.id} ended ${writer.terminal}: ${reasonOf(outcome)}`);
  }
  // Unreachable while Workflows declare no `durableWaits` (a wait fails before it can suspend).
  if (outcome.kind === 'suspended') throw deps.nonRetryable(`${job.id} cannot suspend here`);
  if (outcome.kind === 'none' || outcome.kind === 'ack_only') {
    return { jobId: job.id, state: outcome.kind === 'none' ? 'lease_lost' : 'cancelled' };
  }
  const decided = outcome;
  const state = await step.do(RUNTIME_STEPS.outcome, START_CONFIG, () => storeTerminal(decided));
  if (state !== 'succeeded') {
    // The instance ends here: its status says errored, D1 says why.
    throw deps.nonRetryable(`${job.id} ended ${state}: ${reasonOf(decided)}`);
  }
  return { jobId: job.id, state };
}

function reasonOf(outcome: Outcome): string {
  return 'error' in outcome ? outcome.error.message : outcome.kind;
}

/**
 * The engine has retried the failed step up to the job's attempt budget already (an
 * interruption comes as an engine abort instead), so an error that is still retriable here has
 * used it up: decided as the last attempt (dead-lettered MAX_ATTEMPTS).
 */
function decideFor(attempt: Attempt, result: Parameters<typeof decideOutcome>[0]['result']) {
  return decideOutcome({
    result,
    cause: attempt.cause,
    attempts: attempt.job.maxAttempts,
    maxAttempts: attempt.job.maxAttempts,
  });
}

function writeContext(deps: WorkflowRunDeps) {
  return { now: Date.now(), leaseMs: LEASE_MS, owner: deps.owner ?? `workflow-${deps.version}` };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
