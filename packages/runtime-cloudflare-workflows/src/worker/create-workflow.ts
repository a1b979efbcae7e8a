// `createSluiceWorkflow({ jobs, handlers, version })`: the Workflow class of ONE job version.
// Versions are separate classes on separate bindings (`v1` → `WF_V1`): Workflows have no
// per-instance version pinning, so a deploy of new code must never run an old version's jobs.
// Each instance is one job (instance id = job id, params = its pointer); `run()` is the stage
// runner with its step seam bound to `step.do` (workflow-run.ts). Its job store is D1 by default;
// `store: gatewayStoreFromEnv(…)` makes it the Node gateway that dispatched the job (REST
// dispatcher), reached over the signed callbacks (gateway-job-store.ts).

import { WorkflowEntrypoint } from 'cloudflare:workers';
import { NonRetryableError } from 'cloudflare:workflows';
import { isVersion, SluiceError, type JobRegistry, type SluiceLogger } from '@sluice/contracts';
import { CLOUDFLARE_WORKFLOWS_CAPABILITIES } from '../capabilities.js';
import {
  createR2BlobStore,
  openD1Database,
  type BlobStore,
  type D1Like,
  type R2BucketLike,
  type SluiceDatabase,
} from '@sluice/storage/d1';
import {
  createProviderLimiter,
  type HandlerRegistry,
  resolveHandlers,
  resolveHooks,
  resolveProviderLimits,
  type SendRequest,
  type WorkerHooks,
} from '@sluice/worker/platform';
import type {
  QueueLike,
  WorkflowEventLike,
  WorkflowStepConfig,
  WorkflowStepLike,
} from '../platform.js';
import type { DeadLetterMessage } from './dead-letter.js';
import { d1JobStore, type RunJobStore } from './job-store.js';
import { runWorkflowJob, type WorkflowRunResult } from './workflow-run.js';

export interface SluiceWorkflowOptions<R extends JobRegistry> {
  jobs: R;
  handlers: HandlerRegistry<R>;
  /** The version this class serves. */
  version: string;
  /**
   * The run's job store, built per run from the Worker's env (default: D1 on the `database`
   * binding). A Node gateway's jobs: `gatewayStoreFromEnv()` (gateway-job-store.ts).
   */
  store?: ((env: Record<string, unknown>) => RunJobStore) | undefined;
  /** Binding names in the Worker's env (defaults: DB, BLOBS, DLQ). */
  bindings?: { database?: string; blobs?: string; deadLetters?: string } | undefined;
  /** Step retries: the first retry after `baseMs`, exponential, capped per the job's budget. */
  retry?: { baseMs?: number | undefined; timeout?: string | number | undefined } | undefined;
  unitConcurrency?: number | undefined;
  logger?: SluiceLogger | undefined;
  /** Tests only: crash points and injected decisions (never set in production). */
  hooks?: Partial<WorkerHooks> | undefined;
  /** Tests only: a sender other than fetch. */
  send?: SendRequest | undefined;
}

/** A `WorkflowEntrypoint` subclass (export it under the `class_name` of its wrangler binding). */
export type SluiceWorkflowClass = new (
  ctx: unknown,
  env: Record<string, unknown>,
) => {
  run(event: WorkflowEventLike, step: WorkflowStepLike): Promise<WorkflowRunResult>;
};

/** Warnings and errors to the Workers console (`wrangler tail`); info is left out. */
const consoleLogger: SluiceLogger = {
  info() {},
  warn(msg, fields) {
    console.warn(msg, fields ?? {});
  },
  error(msg, fields) {
    console.error(msg, fields ?? {});
  },
};

export function createSluiceWorkflow<R extends JobRegistry>(
  opts: SluiceWorkflowOptions<R>,
): SluiceWorkflowClass {
  if (!isVersion(opts.version)) {
    throw new SluiceError('INVALID_CONFIG', `version must look like v1, got "${opts.version}"`);
  }
  const handlers = resolveHandlers(opts.jobs, opts.handlers as HandlerRegistry);
  const names = {
    database: opts.bindings?.database ?? 'DB',
    blobs: opts.bindings?.blobs ?? 'BLOBS',
    deadLetters: opts.bindings?.deadLetters ?? 'DLQ',
  };
  const hooks = resolveHooks(opts.hooks);
  // Limits declared on the jobs' provider calls, enforced with the D1 counters every instance
  // shares. A gateway store has no such counters: its gateway refuses those kinds at submit.
  const providerLimits = resolveProviderLimits(opts.jobs);
  const baseMs = opts.retry?.baseMs ?? 1000;
  const stepConfig = (maxAttempts: number): WorkflowStepConfig => ({
    // The job's attempt budget is the step's: `limit` counts retries, so attempts = limit + 1.
    retries: { limit: Math.max(0, maxAttempts - 1), delay: baseMs, backoff: 'exponential' },
    timeout: opts.retry?.timeout ?? '10 minutes',
  });
  // One database handle per isolate and binding (kysely is cheap, but no need to rebuild it).
  const opened = new WeakMap<object, SluiceDatabase>();

  const d1StoreOf = (d1: unknown): RunJobStore => {
    if (!d1) throw new NonRetryableError(`no D1 binding "${names.database}" in the Worker's env`);
    let database = opened.get(d1 as object);
    if (!database) {
      database = openD1Database(d1 as D1Like);
      opened.set(d1 as object, database);
    }
    return d1JobStore(database);
  };

  return class SluiceWorkflow extends WorkflowEntrypoint<Record<string, unknown>> {
    override async run(
      event: WorkflowEventLike,
      step: WorkflowStepLike,
    ): Promise<WorkflowRunResult> {
      const env = this.env;
      const store = opts.store ? opts.store(env) : d1StoreOf(env[names.database]);
      const bucket = env[names.blobs] as R2BucketLike | undefined;
      const blobs: BlobStore | undefined = bucket ? createR2BlobStore(bucket) : undefined;
      return runWorkflowJob(
        {
          store,
          handlers,
          version: opts.version,
          capabilities: CLOUDFLARE_WORKFLOWS_CAPABILITIES,
          blobs,
          deadLetters: env[names.deadLetters] as QueueLike<DeadLetterMessage> | undefined,
          logger: opts.logger ?? consoleLogger,
          stepConfig,
          nonRetryable: (message) => new NonRetryableError(message),
          limiter:
            store.database && providerLimits.size > 0
              ? createProviderLimiter({ database: store.database, limits: providerLimits })
              : undefined,
          send: opts.send,
          unitConcurrency: opts.unitConcurrency,
          hooks,
        },
        event,
        step,
      );
    }
  } as unknown as SluiceWorkflowClass;
}
