// Step checkpoints backed by the units table, for runtimes that do not memoize steps. One
// attempt loads all of its job's checkpoints once (`getUnits`, or `preloaded`: the admission
// loads those of a read batch's retried jobs in one query, after their start committed, so it
// sees the same rows); `run(name, fn)` returns a stored
// result instead of running `fn` (looked up by job AND step name), and otherwise hands `fn`'s
// result to the attempt (`store`): a unit that went through the provider guard is stored before
// the next step runs (fenced by the attempt's epoch); any other result rides with the attempt's
// next write, its outcome included, since running it again costs nothing but time.
//
// The first attempt of a job skips the load: a units row is only ever written by the attempt
// that holds the job at that row's epoch, epochs start at 0 and only opening an attempt (start,
// reclaim) raises them, and nothing lowers or resets them (approve/requeue reset `attempts`, not
// the epoch). So at epoch 1 the only attempt that could have stored a row is this one. Stores
// are written by the attempt's writer (group commit across attempts).
//
// The row keeps the step name as `unit_key` (`unit:<key>` for units): the same names a push platform's
// durable step memoizes under. Results go through JSON both times, so a fresh result and a reused
// one are the same value. Results larger than `inlineLimitBytes` belong in the asset store
// (`largeResults`, the asset protocol's seam); until one is configured they are kept in the row
// up to `hardCapBytes`, and refused above it.

import { NonRetriableError, SluiceError } from '@sluice/contracts';
import {
  getUnits,
  type SluiceDatabase,
  type UnitCheckpoint,
  type UnitWrite,
} from '@sluice/storage/d1';
import { DEFAULT_HOOKS, type WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import type { CheckpointStore } from '../attempt/step.js';

/** Where results too large for a row go (the asset protocol implements it). */
export interface LargeResultStore {
  /** Stores the JSON text of one step's result; returns the asset key the row points at. */
  put(p: { jobId: string; stepName: string; json: string }): Promise<string>;
  get(assetKey: string): Promise<string>;
}

export interface UnitCheckpointsOptions {
  database: SluiceDatabase;
  jobId: string;
  epoch: number;
  /** This job's checkpoints, loaded with its read batch after the start (else `getUnits`). */
  preloaded?: Promise<ReadonlyMap<string, UnitCheckpoint>> | undefined;
  /**
   * Hands a result to the attempt's writer: 'stored' once durable, 'queued' when it rides with
   * the attempt's next write, 'fenced' when the attempt no longer holds the job.
   */
  store(unit: UnitWrite, stepName: string): Promise<'stored' | 'queued' | 'fenced'>;
  /** The attempt's writes were fenced: it lost its job. */
  onFenced(): void;
  logger?: WorkerLogger | undefined;
  /** Results above this go to `largeResults` (default 64 KiB of JSON). */
  inlineLimitBytes?: number | undefined;
  /** Without `largeResults`, results above this are refused (default 1 MiB). */
  hardCapBytes?: number | undefined;
  largeResults?: LargeResultStore | undefined;
  /** Test seams (crash points, the checkpoint lookup); the real ones by default. */
  hooks?: WorkerHooks | undefined;
  /** Counted when a stored result is returned instead of running the step. */
  onReused?: ((name: string) => void) | undefined;
}

const UTF8 = new TextEncoder();

export const INLINE_RESULT_LIMIT_BYTES = 64 * 1024;
export const RESULT_HARD_CAP_BYTES = 1024 * 1024;
/** The epoch of a job's first attempt (epochs start at 0; opening an attempt adds 1). */
const FIRST_EPOCH = 1;

/** What the row holds: an envelope, so `undefined` and `null` results come back as they were. */
type Stored = { value?: unknown };

export interface UnitCheckpoints extends CheckpointStore {
  /** True when `name` was answered from a checkpoint in this attempt. */
  reused(name: string): boolean;
}

export function createUnitCheckpoints(opts: UnitCheckpointsOptions): UnitCheckpoints {
  const db = opts.database.db;
  const hooks = opts.hooks ?? DEFAULT_HOOKS;
  const inlineLimit = opts.inlineLimitBytes ?? INLINE_RESULT_LIMIT_BYTES;
  const hardCap = opts.hardCapBytes ?? RESULT_HARD_CAP_BYTES;
  const reusedNames = new Set<string>();
  let loaded: Promise<ReadonlyMap<string, UnitCheckpoint>> | undefined;

  async function decode(c: UnitCheckpoint): Promise<unknown> {
    if (c.assetKey !== null) {
      if (!opts.largeResults) {
        throw new NonRetriableError(
          `checkpoint of "${c.unitKey}" is stored as asset ${c.assetKey}, but no large-result store is configured`,
        );
      }
      return (JSON.parse(await opts.largeResults.get(c.assetKey)) as Stored).value;
    }
    return (c.result as Stored | null)?.value;
  }

  async function store(name: string, value: unknown): Promise<unknown> {
    const json = JSON.stringify({ value } satisfies Stored);
    // UTF-8 takes at most 3 bytes per UTF-16 unit: text that short cannot pass the inline limit,
    // so it is not encoded just to be measured (every unit result passes here).
    const size = json.length * 3 <= inlineLimit ? json.length : UTF8.encode(json).byteLength;
    let assetKey: string | null = null;
    if (size > inlineLimit && opts.largeResults) {
      assetKey = await opts.largeResults.put({ jobId: opts.jobId, stepName: name, json });
    } else if (size > hardCap) {
      throw new NonRetriableError(
        `step "${name}" returned ${size} bytes of JSON; results above ${hardCap} bytes need the asset store (write the data with ctx.assets and return its key)`,
      );
    } else if (size > inlineLimit) {
      opts.logger?.warn('large step result kept in the units row (no asset store configured)', {
        jobId: opts.jobId,
        step: name,
        bytes: size,
      });
    }
    const stored = JSON.parse(json) as Stored;
    const unit: UnitWrite = {
      unitKey: name,
      ...(assetKey === null ? { result: stored } : { assetKey }),
    };
    switch (await opts.store(unit, name)) {
      case 'stored':
        hooks.at('after-unit-checkpoint');
        return stored.value;
      case 'queued':
        return stored.value;
      case 'fenced':
        opts.onFenced();
        throw new SluiceError('LEASE_LOST', `step "${name}": this attempt no longer holds the job`);
    }
  }

  return {
    async run<T>(name: string, fn: () => Promise<T>): Promise<T> {
      // Epoch 1 is the job's first attempt: no other attempt can have stored anything (header).
      loaded ??=
        opts.epoch <= FIRST_EPOCH
          ? Promise.resolve(new Map())
          : (opts.preloaded ?? getUnits(db, opts.jobId));
      const stored = await loaded;
      const hit = hooks.findCheckpoint(stored, name);
      if (hit) {
        reusedNames.add(name);
        opts.onReused?.(name);
        return (await decode(hit)) as T;
      }
      return (await store(name, await fn())) as T;
    },
    reused: (name) => reusedNames.has(name),
  };
}
