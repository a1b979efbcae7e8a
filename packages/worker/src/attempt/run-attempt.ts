// One attempt's execution: run the stages under the attempt's signal and decide its outcome (the
// abort cause first). Per attempt it builds the checkpoint store (the units table, unless the
// runtime memoizes steps), the provider guard (the ledger) and `ctx.assets` (the asset
// protocol, which also takes step results too large for a units row), all fenced by the
// attempt's epoch. Storing the outcome is the host's (attempt-runner.ts).
//
// Lazy start: the guard, the asset writer and a paid unit's checkpoint each call `ensureStarted`
// before their first durable write, so the job is `running` at this attempt's epoch in the
// database before a provider can bill, a blob can be published or a checkpoint can land. Events
// and unpaid checkpoints only queue on the attempt: they ride with its next write.

import { backoffMs, type Delivery, type RuntimeCapabilities } from '@sluice/contracts';
import type { BlobStore, SluiceDatabase } from '@sluice/storage';
import { createAttemptAssets } from '../assets/attempt-assets.js';
import { createUnitCheckpoints, type LargeResultStore } from '../checkpoints/unit-checkpoints.js';
import { createProviderGuard } from '../guard/provider-guard.js';
import { sendRequest } from '../guard/send-request.js';
import type { WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';
import type { Attempt } from './attempt.js';
import { decideOutcome, type AttemptResult, type Outcome } from './decide-outcome.js';
import type { ResolvedHandlers } from './handler-registry.js';
import { createJobFiles } from './job-files.js';
import { runStages } from './stage-runner.js';
import { activeTracer, startAttemptTrace } from '../tracing/attempt-trace.js';
import type { Tracer } from '@opentelemetry/api';
import { createStep, type CheckpointStore } from './step.js';
import type { ProviderLimiter } from '../guard/provider-limiter.js';
import { databaseLedger } from '../guard/call-ledger.js';
import { createAttemptWaits } from '../waits/create-attempt-waits.js';
import type { StoredEvent } from '@sluice/storage';

export interface RunAttemptDeps<D extends Delivery> {
  database: SluiceDatabase;
  blobs: BlobStore | undefined;
  handlers: ResolvedHandlers;
  capabilities: RuntimeCapabilities;
  /** Overrides the units-table checkpoints (tests); ignored when the runtime memoizes steps. */
  checkpoints: CheckpointStore | undefined;
  /** Where step results too large for a units row go (the asset protocol's seam). */
  largeResults?: LargeResultStore | undefined;
  counters?: WorkerCounters | undefined;
  /** The tracer of attempt and provider-call spans (default: the global one, when registered). */
  tracer?: Tracer | undefined;
  /** The provider-call duration histogram (class, ledger outcome, seconds). */
  observeProviderCall?: ((callClass: string, outcome: string, seconds: number) => void) | undefined;
  /** Shared provider limits (guard/provider-limiter.ts); none: calls are not limited. */
  limiter?: ProviderLimiter | undefined;
  unitConcurrency: number | undefined;
  retryBackoff: { baseMs?: number; maxMs?: number } | undefined;
  logger: WorkerLogger;
  hooks: WorkerHooks;
  /** Stores everything the attempt has pending (starting it first); rejects LEASE_LOST if fenced. */
  persist(attempt: Attempt<D>): Promise<void>;
  /** Something was queued on the attempt: written behind once the attempt writes as it goes. */
  queued(attempt: Attempt<D>): void;
  /** The attempt's writes were fenced: it lost its job. */
  lose(attempt: Attempt<D>): void;
  /** Events stored outside the writer (a suspend): logged and sent to the gateways. */
  publish?: ((events: StoredEvent[]) => void) | undefined;
}

export async function runAttempt<D extends Delivery>(
  deps: RunAttemptDeps<D>,
  attempt: Attempt<D>,
): Promise<Outcome> {
  const { job } = attempt;
  const signal = attempt.controller.signal;
  const lose = () => deps.lose(attempt);
  /** Unit keys whose execute went through the guard (a ledger row may exist): checkpoint at once. */
  const paid = new Set<string>();
  const ensureStarted = async (): Promise<void> => {
    attempt.writeBehind = true;
    if (!attempt.started) await deps.persist(attempt);
  };
  const { hooks } = deps;
  hooks.at('after-claim');
  const tracer = activeTracer(deps.tracer);
  const traced = tracer ? startAttemptTrace(tracer, job) : undefined;
  let result: AttemptResult;
  try {
    // Only the job's own version runs it: never a silent fallback to another one.
    const version = hooks.handlerVersion(job.version, deps.handlers.versionsOf(job.kind));
    const handler = version === undefined ? undefined : deps.handlers.get(job.kind, version);
    if (!handler) throw new Error(`no handler for ${job.kind} ${job.version}`);
    const counters = deps.counters;
    const assets = createAttemptAssets({
      database: deps.database,
      blobs: deps.blobs,
      job,
      signal,
      onFenced: lose,
      beforeWrite: ensureStarted,
      hooks,
      counters,
      logger: deps.logger,
    });
    const units = deps.capabilities.memoizesSteps
      ? undefined
      : createUnitCheckpoints({
          database: deps.database,
          jobId: job.id,
          epoch: job.epoch,
          preloaded: attempt.checkpoints,
          onFenced: lose,
          logger: deps.logger,
          largeResults: deps.largeResults ?? assets.largeResults,
          hooks,
          async store(unit, name) {
            attempt.pending.units.push(unit);
            // A unit that went through the guard is stored before the next unit runs: a crash
            // after it must never pay again. Others ride with the attempt's next write.
            if (!paid.has(name.replace(/^unit:/, ''))) {
              deps.queued(attempt);
              return 'queued';
            }
            try {
              await ensureStarted();
              await deps.persist(attempt);
              return 'stored';
            } catch {
              return 'fenced';
            }
          },
          onReused: () => {
            if (counters) counters.checkpointsReused++;
          },
        });
    const checkpoints = deps.checkpoints ?? units;
    const providers = createProviderGuard({
      ledger: databaseLedger(deps.database),
      job,
      declarations: handler.job.providers,
      send: sendRequest,
      signal,
      logger: deps.logger,
      counters,
      observeCall: deps.observeProviderCall,
      trace: traced?.parent,
      onFenced: lose,
      hooks,
      beforeWrite: async (unitKey) => {
        paid.add(unitKey);
        await ensureStarted();
      },
      limiter: deps.limiter,
      // Visible to watchers while the call waits: the job's next write carries it.
      onWait: (wait) => {
        attempt.pending.events.push({ type: 'waiting', ...wait, at: new Date().toISOString() });
        deps.queued(attempt);
      },
    });
    const waits = createAttemptWaits({
      database: deps.database,
      capabilities: deps.capabilities,
      definition: handler.job,
      job,
      flush: async () => {
        await ensureStarted();
        await deps.persist(attempt);
      },
      fence: () => attempt.fence,
      onSuspended: (event) => deps.publish?.([event]),
      onFenced: lose,
      hooks,
      attemptId: job.attemptId,
    });
    const output = await runStages({
      waits,
      handler,
      job,
      signal,
      events: {
        push(event) {
          attempt.pending.events.push({ ...event, at: new Date().toISOString() });
          deps.queued(attempt);
        },
      },
      step: createStep({ capabilities: deps.capabilities, checkpoints }),
      capabilities: deps.capabilities,
      providers,
      assets,
      reused: checkpoints === units ? units?.reused : undefined,
      files: createJobFiles({
        database: deps.database,
        blobs: deps.blobs,
        tenantId: job.tenantId,
        fileIds: job.fileIds,
      }),
      unitConcurrency: deps.unitConcurrency,
      hooks,
    });
    result = { ok: true, output };
  } catch (error) {
    result = { ok: false, error };
  }
  // A refused write: wait until the host knows whether the job was cancelled or taken over.
  if (attempt.fenced) await attempt.fenceSettled;
  const outcome = decideOutcome({
    result,
    cause: attempt.cause,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    backoff: (n) => backoffMs(n, deps.retryBackoff),
  });
  traced?.end(outcome.kind, !result.ok);
  if (
    !result.ok &&
    outcome.kind !== 'ack_only' &&
    outcome.kind !== 'none' &&
    outcome.kind !== 'suspended'
  ) {
    // Stored on the job by the outcome write; logged as well for operators.
    deps.logger.warn('attempt failed', {
      jobId: job.id,
      attempt: job.attempts,
      outcome: outcome.kind,
      error: result.error,
    });
  }
  return outcome;
}
