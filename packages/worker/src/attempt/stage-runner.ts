// Runs one attempt of a job through its stages: prepare → execute (units in a bounded pool, each
// through `step('unit:<key>')`) → apply → finalize. The input is parsed with the job's input
// schema and the output validated with its output schema; a value that does not fit is a
// non-retriable failure (a retry would produce the same value). Progress is validated here and
// queued in order; the host writes what is left before the terminal transition.
//
// Each stage gets its own `ctx.providers`: only a unit's `execute` may call a provider, and its
// client closes when the unit settles. prepare, apply and finalize run again on every retry, so
// a provider call there would pay again: the guard refuses it, naming the stage.
//
// On a runtime that memoizes steps (`capabilities.memoizesSteps`: a push platform's durable step) the whole
// run replays from the top after a crash, so prepare, apply and finalize are steps too
// (`STAGE_STEPS`) and a unit's `unit_done` event is queued inside its step: a replay returns
// their stored results and queues nothing twice. The runner reads the flag, never a runtime name.

import {
  NonRetriableError,
  type AnyJobDefinition,
  type RuntimeCapabilities,
  type Schema,
} from '@sluice/contracts';
import { z } from 'zod';
import type {
  Handler,
  HandlerContext,
  HandlerFiles,
  StepFn,
  Unit,
  UnitResult,
} from './define-handler.js';
import type { AttemptEvent } from '@sluice/storage';
import { createRefusingAssets, type AttemptAssets } from '../assets/attempt-assets.js';
import { DEFAULT_HOOKS, type WorkerHooks } from '../hooks.js';
import { createRefusingGuard, type ProviderGuard } from '../guard/provider-guard.js';
import type { GuardStage } from '../guard/types.js';
import { abortReason } from './pool.js';
import { refusingWaits, type AttemptWaits } from '../waits/create-attempt-waits.js';
import type { HandlerWaits } from '../waits/types.js';

export interface AttemptJob {
  readonly id: string;
  readonly kind: string;
  readonly version: string;
  readonly tenantId: string;
  /** The attempt number (attempts counted in the database). */
  readonly attempts: number;
  readonly input: unknown;
}

export interface RunStagesInput {
  handler: Handler;
  job: AttemptJob;
  signal: AbortSignal;
  /** The attempt's ordered event queue. */
  events: { push(event: AttemptEvent): void };
  step: StepFn;
  files: HandlerFiles;
  /** Units run at once (default 4). */
  unitConcurrency?: number | undefined;
  /** The attempt's provider guard (default: one that refuses every call). */
  providers?: ProviderGuard | undefined;
  /** The attempt's asset access (default: one that refuses, as without a blob store). */
  assets?: AttemptAssets | undefined;
  /** Test seams (crash points, the unit pool); the real ones by default. */
  hooks?: WorkerHooks | undefined;
  /** Whether a step was answered from a checkpoint (unknown on platforms that memoize). */
  reused?: ((stepName: string) => boolean) | undefined;
  /** The attempt's durable waits and child jobs (default: refused, as on a runtime without them). */
  waits?: AttemptWaits | undefined;
  /** The runtime's flags; `memoizesSteps` makes the stages themselves steps. */
  capabilities?: Pick<RuntimeCapabilities, 'memoizesSteps'> | undefined;
}

/** Step names of the stages on a runtime that memoizes steps (units are `unit:<key>`). */
export const STAGE_STEPS = {
  prepare: 'stage:prepare',
  apply: 'stage:apply',
  finalize: 'stage:finalize',
} as const;

export const DEFAULT_UNIT_CONCURRENCY = 4;

/** Stateless and frozen: one for every run without waits, not one per run. */
const NO_WAITS = refusingWaits('this run has no durable waits (the runtime lacks durableWaits)');

function describeIssues(error: z.core.$ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

async function parseWith(schema: Schema, value: unknown, what: string): Promise<unknown> {
  // Synchronous first: the async parse cost a no-op job more than its handler. Only a schema with
  // async refinements or transforms needs the async one (zod says so by throwing $ZodAsyncError).
  let parsed: z.ZodSafeParseResult<unknown>;
  try {
    parsed = z.safeParse(schema, value);
  } catch (error) {
    if (!(error instanceof z.core.$ZodAsyncError)) throw error;
    parsed = await z.safeParseAsync(schema, value);
  }
  if (!parsed.success) throw new NonRetriableError(`${what}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/** A batch kind's run schemas: arrays of its input and output (built once per definition). */
const batchSchemas = new WeakMap<AnyJobDefinition, { input: Schema; output: Schema }>();
function runSchemas(definition: AnyJobDefinition): { input: Schema; output: Schema } {
  if (definition.batch === undefined) return definition;
  let schemas = batchSchemas.get(definition);
  if (!schemas) {
    schemas = {
      input: z.array(definition.input as z.ZodType),
      output: z.array(definition.output as z.ZodType),
    };
    batchSchemas.set(definition, schemas);
  }
  return schemas;
}

/** Runs the stages and returns the validated output. Throws whatever the job code threw. */
export async function runStages(run: RunStagesInput): Promise<unknown> {
  const { handler, job, signal, events } = run;
  const definition: AnyJobDefinition = handler.job;
  // A batch kind's run takes the array of its submits' inputs and returns one output each.
  const schemas = runSchemas(definition);
  const input = await parseWith(
    schemas.input,
    job.input,
    'the stored input does not match the input schema',
  );
  const guard = run.providers ?? createRefusingGuard('no provider guard in this run');
  const assets = run.assets ?? createRefusingAssets('no asset store in this run');
  const progress = (data: unknown) => {
    const parsed = z.safeParse(definition.progress, data);
    if (!parsed.success) {
      throw new NonRetriableError(
        `progress does not match the progress schema: ${describeIssues(parsed.error)}`,
      );
    }
    events.push({ type: 'progress', data: parsed.data });
  };
  // One literal of a fixed shape per stage and unit (an object spread here was ~3 % of a busy
  // worker's CPU).
  const waitsFor = (stage: GuardStage): HandlerWaits => run.waits?.forStage(stage) ?? NO_WAITS;
  const contextWith = (
    providers: HandlerContext['providers'],
    stageAssets: HandlerContext['assets'],
    w: HandlerWaits,
  ): HandlerContext => ({
    jobId: job.id,
    kind: job.kind,
    version: job.version,
    tenantId: job.tenantId,
    attempt: job.attempts,
    input,
    signal,
    progress,
    files: run.files,
    step: run.step,
    providers,
    assets: stageAssets,
    waitForEvent: w.waitForEvent,
    sleep: w.sleep,
    createToken: w.createToken,
    children: w.children,
  });
  const stageCtx = (stage: Exclude<GuardStage, 'execute'>): HandlerContext =>
    contextWith(guard.forStage(stage), assets.forStage(stage), waitsFor(stage));
  const unitWaits = waitsFor('execute');
  const { stages } = handler;
  const memoized = run.capabilities?.memoizesSteps === true;
  /** A stage's work: a step of its own where a replay would otherwise run it again. */
  const stage = <T>(name: string, fn: () => Promise<T>): Promise<T> =>
    memoized ? run.step(name, fn) : fn();

  signal.throwIfAborted();
  const units = checkUnits(
    await stage(STAGE_STEPS.prepare, async () => stages.prepare(stageCtx('prepare'))),
  );

  signal.throwIfAborted();
  const hooks = run.hooks ?? DEFAULT_HOOKS;
  const results = await hooks.runPool(
    units.map((unit) => ({
      key: unit.key,
      run: async (): Promise<UnitResult<unknown>> => {
        const name = `unit:${unit.key}`;
        const result = await run.step(name, async () => {
          const providers = guard.forUnit(unit.key);
          try {
            const value = await stages.execute(
              unit,
              contextWith(providers, assets.forUnit(unit.key), unitWaits),
            );
            // Memoized: the event belongs to the step, so a replay that reuses it queues none.
            if (memoized) events.push({ type: 'unit_done', unitKey: unit.key });
            return value;
          } finally {
            providers.close();
          }
        });
        if (!memoized) {
          const reused = run.reused?.(name) === true;
          events.push({ type: 'unit_done', unitKey: unit.key, ...(reused ? { reused } : {}) });
        }
        return { key: unit.key, result };
      },
    })),
    { concurrency: run.unitConcurrency ?? DEFAULT_UNIT_CONCURRENCY, signal },
  );

  if (signal.aborted) throw abortReason(signal);
  const apply = stages.apply;
  const applied = apply
    ? await stage(STAGE_STEPS.apply, async () => apply(results, stageCtx('apply')))
    : results;

  if (signal.aborted) throw abortReason(signal);
  const output = await stage(STAGE_STEPS.finalize, async () =>
    stages.finalize(applied, stageCtx('finalize')),
  );
  // finalize ran (its effects happened) and its output is not stored: a retry runs it again.
  hooks.at('during-finalize');
  if (definition.batch !== undefined) {
    // Each submitter's share is `output[i]`: a missing or extra one would hand a share to the
    // wrong submitter.
    const got = Array.isArray(output) ? output.length : 'no array';
    if (got !== (input as unknown[]).length) {
      throw new NonRetriableError(
        `a batch run must return one output per input: ${(input as unknown[]).length} inputs, got ${got}`,
      );
    }
  }
  return parseWith(
    schemas.output,
    output,
    'finalize returned an output that does not match the output schema',
  );
}

function checkUnits(units: unknown): Unit<unknown>[] {
  if (!Array.isArray(units)) throw new NonRetriableError('prepare must return an array of units');
  const keys = new Set<string>();
  for (const unit of units as Unit<unknown>[]) {
    const key: unknown = unit?.key;
    if (typeof key !== 'string' || key.length === 0) {
      throw new NonRetriableError('every unit needs a non-empty string key');
    }
    if (keys.has(key))
      throw new NonRetriableError(
        `duplicate unit key "${key}": keys must be unique and deterministic`,
      );
    keys.add(key);
  }
  return units as Unit<unknown>[];
}
