// One attempt from start to stored outcome: run the stages under the attempt's signal, free the
// execution slot, wait for the attempt's queued events, decide the outcome (the abort cause
// first), and hand it to the terminal writer, which stores it before the delivery is finished.
// Per attempt it builds the checkpoint store (the units table, unless the runtime memoizes
// steps), the provider guard (the ledger) and `ctx.assets` (the asset protocol, which also takes
// step results too large for a units row), all fenced by the attempt's epoch.

import { backoffMs, type Delivery, type RuntimeCapabilities } from '@sluice/contracts';
import type { BlobStore, SluiceDatabase } from '@sluice/storage';
import { createAttemptAssets } from '../assets/attempt-assets.js';
import type { Attempt } from './attempt.js';
import type { CheckpointWriter } from '../writers/checkpoint-writer.js';
import { createUnitCheckpoints, type LargeResultStore } from '../checkpoints/unit-checkpoints.js';
import { crashpoint } from '../crashpoint.js';
import { createProviderGuard } from '../guard/provider-guard.js';
import type { WorkerCounters } from '../metrics.js';
import { decideOutcome, type AttemptResult } from './decide-outcome.js';
import type { ResolvedHandlers } from './handler-registry.js';
import { createJobFiles } from './job-files.js';
import type { WorkerLogger } from '../logger.js';
import { runStages } from './stage-runner.js';
import { seededBug } from '../testing/seeded-bug.js';
import { createStep, type CheckpointStore } from './step.js';
import type { TerminalWriter } from '../writers/terminal-writer.js';

export interface RunAttemptDeps<D extends Delivery> {
  database: SluiceDatabase;
  blobs: BlobStore | undefined;
  handlers: ResolvedHandlers;
  capabilities: RuntimeCapabilities;
  /** Overrides the units-table checkpoints (tests); ignored when the runtime memoizes steps. */
  checkpoints: CheckpointStore | undefined;
  /** Group commit of unit checkpoints, shared by the host's attempts. */
  checkpointWriter?: CheckpointWriter | undefined;
  /** Where step results too large for a units row go (the asset protocol's seam). */
  largeResults?: LargeResultStore | undefined;
  counters?: WorkerCounters | undefined;
  unitConcurrency: number | undefined;
  retryBackoff: { baseMs?: number; maxMs?: number } | undefined;
  logger: WorkerLogger;
  terminal: TerminalWriter<D>;
  /** The handler returned or threw: its execution slot is free. */
  executed(): void;
  /** The attempt's writes were fenced: it lost its job. */
  lose(attempt: Attempt<D>): void;
}

export async function runAttempt<D extends Delivery>(
  deps: RunAttemptDeps<D>,
  attempt: Attempt<D>,
): Promise<void> {
  const { job } = attempt;
  const signal = attempt.controller.signal;
  const lose = () => deps.lose(attempt);
  crashpoint('after-claim');
  let result: AttemptResult;
  try {
    const served = deps.handlers.versionsOf(job.kind);
    const handler =
      deps.handlers.get(job.kind, job.version) ??
      // Seeded bug: run with the handler of another version of the kind.
      (seededBug('version-fallback') && served[0]
        ? deps.handlers.get(job.kind, served[0])
        : undefined);
    if (!handler) throw new Error(`no handler for ${job.kind} ${job.version}`);
    const attemptId = job.attemptId ?? `epoch-${job.epoch}`;
    const counters = deps.counters;
    const assets = createAttemptAssets({
      database: deps.database,
      blobs: deps.blobs,
      job: { id: job.id, tenantId: job.tenantId, attemptId, epoch: job.epoch },
      signal,
      onFenced: lose,
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
          attemptId,
          onFenced: lose,
          logger: deps.logger,
          largeResults: deps.largeResults ?? assets.largeResults,
          writer: deps.checkpointWriter,
          onReused: () => {
            if (counters) counters.checkpointsReused++;
          },
        });
    const checkpoints = deps.checkpoints ?? units;
    const providers = createProviderGuard({
      database: deps.database,
      job: { ...job, attemptId },
      declarations: handler.job.providers,
      signal,
      logger: deps.logger,
      counters,
      onFenced: lose,
    });
    const output = await runStages({
      handler,
      job,
      signal,
      events: attempt.events,
      step: createStep({ capabilities: deps.capabilities, checkpoints }),
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
    });
    result = { ok: true, output };
  } catch (error) {
    result = { ok: false, error };
  }
  attempt.phase = 'finishing';
  deps.executed();
  const events = await attempt.events.settle();
  if (attempt.events.fenced) deps.lose(attempt);
  const outcome = decideOutcome({
    result,
    cause: attempt.cause,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    backoff: (n) => backoffMs(n, deps.retryBackoff),
  });
  if (!result.ok && outcome.kind !== 'ack_only' && outcome.kind !== 'none') {
    // Stored on the job by the terminal write; logged as well for operators.
    deps.logger.warn('attempt failed', {
      jobId: job.id,
      attempt: job.attempts,
      outcome: outcome.kind,
      error: result.error,
    });
  }
  if (outcome.kind !== 'none') await deps.terminal.submit({ attempt, outcome, events });
}
