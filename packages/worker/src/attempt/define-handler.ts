// Handlers in stages, because a unit is what a retry skips or repeats: `prepare` plans units with deterministic keys,
// `execute` runs one unit (its provider calls go through `ctx.providers`, the guard), `apply`
// combines without provider calls, `finalize` returns the job output. Typed from the job definition, so a handler cannot return
// an output, report a progress value or read an input field the definition does not declare.

import {
  SluiceError,
  type AnyJobDefinition,
  type inferRunInput,
  type inferRunOutput,
} from '@sluice/contracts';
import type { z } from 'zod';
import type { AssetClient } from '../assets/types.js';
import type { ProviderClient } from '../guard/types.js';
import type { HandlerWaits } from '../waits/types.js';

/** One unit of work planned by `prepare`. The key names it across attempts: keep it deterministic. */
export interface Unit<TUnit> {
  readonly key: string;
  readonly input: TUnit;
}

export interface UnitResult<TResult> {
  readonly key: string;
  readonly result: TResult;
}

/** The one checkpoint seam: named work whose result a later attempt may reuse. */
export type StepFn = <T>(name: string, fn: () => Promise<T>) => Promise<T>;

export interface HandlerFiles {
  /** Streams one of the job's own files from the blob store. Other files answer NOT_FOUND. */
  open(fileId: string): Promise<ReadableStream<Uint8Array>>;
}

/**
 * What a stage gets. Durable waits (`waitForEvent`, `sleep`, `createToken`) and `children` come
 * from `HandlerWaits`: allowed in prepare, apply and finalize, refused in a unit's execute.
 */
export interface HandlerContext<
  J extends AnyJobDefinition = AnyJobDefinition,
> extends HandlerWaits<J> {
  readonly jobId: string;
  readonly kind: J['kind'];
  readonly version: string;
  readonly tenantId: string;
  /** This attempt's number, counted in the database from 1. */
  readonly attempt: number;
  /** The input, parsed with the job's input schema (a batch kind: the batch's inputs, in order). */
  readonly input: inferRunInput<J>;
  /** Aborted on cancel, on a lost lease and when a drain runs out of time. */
  readonly signal: AbortSignal;
  /** Validates with the progress schema and queues the event; events are stored in order. */
  progress(data: z.input<J['progress']>): void;
  readonly files: HandlerFiles;
  readonly step: StepFn;
  /**
   * Paid providers, only through the guard: `ctx.providers.call(name, request, opts?)` with a
   * name declared in the job's `providers`. Allowed only in `execute` (other stages refuse).
   */
  readonly providers: ProviderClient<ProviderName<J>>;
  /**
   * Stored files through the asset protocol: `ctx.assets.write({ name, body, contentType })`
   * streams to a deterministic key of this unit (or finalize) and a retry reuses what an earlier
   * attempt published. Writes are allowed in `execute` and `finalize`; `open` everywhere.
   */
  readonly assets: AssetClient;
}

/** The names declared in a job's `providers` (plain `string` when they are not literal). */
export type ProviderName<J extends AnyJobDefinition> = Extract<keyof J['providers'], string>;

export interface HandlerStages<J extends AnyJobDefinition, TUnit, TResult, TApplied> {
  prepare(ctx: HandlerContext<J>): readonly Unit<TUnit>[] | Promise<readonly Unit<TUnit>[]>;
  execute(unit: Unit<TUnit>, ctx: HandlerContext<J>): Promise<TResult> | TResult;
  /** Combines unit results (no provider calls). Default: the results as they are. */
  apply?(
    results: readonly UnitResult<TResult>[],
    ctx: HandlerContext<J>,
  ): Promise<TApplied> | TApplied;
  /**
   * Returns the job output; it is validated with the output schema (invalid = non-retriable). A
   * batch kind returns one output per input, in the inputs' order.
   */
  finalize(
    applied: TApplied,
    ctx: HandlerContext<J>,
  ): Promise<inferRunOutput<J>> | inferRunOutput<J>;
}

export interface Handler<J extends AnyJobDefinition = AnyJobDefinition> {
  readonly job: J;
  /**
   * Typed by `defineHandler`; stored loosely, so a `Handler` of any kind is a `Handler` (the
   * context's generic wait methods would otherwise make `Handler<J>` invariant in `J`).
   */
  readonly stages: HandlerStages<AnyJobDefinition, unknown, unknown, unknown>;
}

export function defineHandler<
  J extends AnyJobDefinition,
  TUnit = unknown,
  TResult = unknown,
  TApplied = readonly UnitResult<TResult>[],
>(job: J, stages: HandlerStages<J, TUnit, TResult, TApplied>): Handler<J> {
  for (const stage of ['prepare', 'execute', 'finalize'] as const) {
    if (typeof stages[stage] !== 'function') {
      throw new SluiceError(
        'INVALID_CONFIG',
        `handler for "${job.kind}": ${stage} must be a function`,
      );
    }
  }
  return Object.freeze({
    job,
    stages: stages as unknown as HandlerStages<AnyJobDefinition, unknown, unknown, unknown>,
  });
}
