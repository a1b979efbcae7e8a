// One attempt from start to stored outcome: run the stages under the attempt's signal, free the
// execution slot, wait for the attempt's queued events, decide the outcome (the abort cause
// first), and hand it to the terminal writer, which stores it before the delivery is finished.

import { backoffMs, type Delivery, type RuntimeCapabilities } from '@sluice/contracts';
import type { BlobStore, SluiceDatabase } from '@sluice/storage';
import type { Attempt } from './attempt.js';
import { decideOutcome, type AttemptResult } from './decide-outcome.js';
import type { ResolvedHandlers } from './handler-registry.js';
import { createJobFiles } from './job-files.js';
import type { WorkerLogger } from './logger.js';
import { runStages } from './stage-runner.js';
import { createStep, type CheckpointStore } from './step.js';
import type { TerminalWriter } from './terminal-writer.js';

export interface RunAttemptDeps<D extends Delivery> {
  database: SluiceDatabase;
  blobs: BlobStore | undefined;
  handlers: ResolvedHandlers;
  capabilities: RuntimeCapabilities;
  checkpoints: CheckpointStore | undefined;
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
  let result: AttemptResult;
  try {
    const handler = deps.handlers.get(job.kind, job.version);
    if (!handler) throw new Error(`no handler for ${job.kind} ${job.version}`);
    const output = await runStages({
      handler,
      job,
      signal: attempt.controller.signal,
      events: attempt.events,
      step: createStep({ capabilities: deps.capabilities, checkpoints: deps.checkpoints }),
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
