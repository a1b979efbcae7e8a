// One attempt's durable waits (`ctx.waitForEvent`, `ctx.sleep`) and the stage restriction. A
// wait is looked up first (its row is its checkpoint: a replay after the resume returns the
// stored value with one read and no write). Otherwise everything the attempt has pending is
// stored, so the fence is exactly where the row stands, and storage `registerWait` writes the
// wait, checks it and — when nothing satisfies it yet — suspends the job, in ONE fenced
// transaction. A suspend unwinds the handler with `AttemptSuspended`.
//
// Wait keys are the call's kind and its order in the run (`event:approved#1`, `sleep#1`): a
// replay runs the same code from the top, so the n-th wait of a run is the same wait again.

import {
  NonRetriableError,
  SluiceError,
  waitReason,
  type AnyJobDefinition,
  type RuntimeCapabilities,
  type WaitKind,
} from '@sluice/contracts';
import {
  getWait,
  type SluiceDatabase,
  type StoredEvent,
  type WaitRequest,
} from '@sluice/storage/d1';
import { z } from 'zod';
import { DEFAULT_HOOKS, type WorkerHooks } from '../hooks.js';
import { AttemptSuspended } from './attempt-suspended.js';
import { createChildJobs } from './child-jobs.js';
import { createTokens } from './tokens.js';
import { untilMs } from './until-ms.js';
import type { HandlerWaits } from './types.js';

export interface AttemptWaitsDeps {
  database: SluiceDatabase;
  capabilities: Pick<RuntimeCapabilities, 'durableWaits' | 'childJobs'>;
  definition: AnyJobDefinition;
  job: { id: string; tenantId: string; epoch: number };
  /** Stores everything the attempt has pending (starting it first): the fence is then current. */
  flush(): Promise<void>;
  /** Where the attempt last left the row. */
  fence(): { epoch: number; lastSeq: number };
  /** The suspend's stored event (for runtimes that carry events to the gateways). */
  onSuspended(event: StoredEvent): void;
  /** The attempt's writes were fenced: it lost its job. */
  onFenced(): void;
  now?: (() => number) | undefined;
  /** Test seams: the wait's transaction and the child key (the real ones by default). */
  hooks?: Pick<WorkerHooks, 'registerWait' | 'childKey' | 'at'> | undefined;
  /** The attempt's id (a seeded bug keys children by it). */
  attemptId?: string | undefined;
}

export interface AttemptWaits {
  forStage(stage: 'prepare' | 'execute' | 'apply' | 'finalize'): HandlerWaits;
}

/** A wait's settled value: its status and stored result. */
export interface Settled {
  status: 'resolved' | 'timed_out';
  value: unknown;
}

export type WaitSpec = Omit<WaitRequest, 'jobId' | 'fence'>;

function lost(): SluiceError {
  return new SluiceError('LEASE_LOST', 'this attempt no longer holds the job');
}

export function createAttemptWaits(deps: AttemptWaitsDeps): AttemptWaits {
  // Built on the first call: most attempts never wait, and building them (a key counter, the
  // token and child-job helpers, a dozen closures) was ~1.6 KB of garbage per no-op job.
  let built: HandlerWaits | undefined;
  const live = (): LooseWaits => (built ??= buildWaits(deps)) as unknown as LooseWaits;
  const waits = {
    waitForEvent: (...args: unknown[]) => live().waitForEvent(...args),
    sleep: (...args: unknown[]) => live().sleep(...args),
    createToken: (...args: unknown[]) => live().createToken(...args),
    children: {
      start: (...args: unknown[]) => live().children.start(...args),
      wait: (...args: unknown[]) => live().children.wait(...args),
    },
  } as unknown as HandlerWaits;
  return { forStage: (stage) => (stage === 'execute' ? IN_UNIT : waits) };
}

type LooseCall = (...args: unknown[]) => Promise<unknown>;
/** `HandlerWaits` without its generics, for forwarding calls as they come. */
interface LooseWaits {
  waitForEvent: LooseCall;
  sleep: LooseCall;
  createToken: LooseCall;
  children: { start: LooseCall; wait: LooseCall };
}

function buildWaits(deps: AttemptWaitsDeps): HandlerWaits {
  const now = deps.now ?? Date.now;
  const counts = new Map<string, number>();
  const keyOf = (base: string, key: string | undefined): string => {
    if (key !== undefined) return `${base}:${key}`;
    const n = (counts.get(base) ?? 0) + 1;
    counts.set(base, n);
    return `${base}#${n}`;
  };

  function assertCapable(capability: 'durableWaits' | 'childJobs'): void {
    if (!deps.capabilities[capability])
      throw new NonRetriableError(
        `this runtime cannot suspend a job (capability ${capability}): the wait was refused`,
      );
  }

  async function wait(spec: WaitSpec): Promise<Settled> {
    const stored = await getWait(deps.database.db, deps.job.id, spec.waitKey);
    if (stored && (stored.status === 'resolved' || stored.status === 'timed_out'))
      return { status: stored.status, value: stored.result };
    await deps.flush();
    const answer = await (deps.hooks ?? DEFAULT_HOOKS).registerWait(deps.database, {
      ...spec,
      jobId: deps.job.id,
      fence: deps.fence(),
    });
    switch (answer.kind) {
      case 'settled':
        return { status: answer.status, value: answer.value };
      case 'fenced':
        deps.onFenced();
        throw lost();
      case 'suspended':
        deps.onSuspended(answer.event);
        throw new AttemptSuspended(waitReason(spec.kind as WaitKind, spec.event));
    }
  }

  async function waitForEvent(
    name: string,
    opts: { key?: string; timeoutMs?: number } = {},
  ): Promise<unknown> {
    assertCapable('durableWaits');
    const schema = deps.definition.events?.[name];
    if (!schema) throw new NonRetriableError(`event "${name}" is not declared in the job's events`);
    const t = now();
    const dueAt =
      opts.timeoutMs === undefined
        ? null
        : new Date(untilMs(opts.timeoutMs, t, 'timeoutMs')).toISOString();
    const settled = await wait({
      waitKey: keyOf(`event:${name}`, opts.key),
      kind: 'event',
      event: name,
      dueAt,
    });
    if (settled.status === 'timed_out') return { timedOut: true };
    // Checked at the gateway against the same schema; parsed here for its output side.
    const parsed = z.safeParse(schema, settled.value);
    if (!parsed.success)
      throw new NonRetriableError(`the payload of event "${name}" does not match its schema`);
    return opts.timeoutMs === undefined ? parsed.data : { timedOut: false, payload: parsed.data };
  }

  async function sleep(duration: number | Date | string, opts: { key?: string } = {}) {
    assertCapable('durableWaits');
    const at = untilMs(duration, now(), 'sleep');
    await wait({
      waitKey: keyOf('sleep', opts.key),
      kind: 'sleep',
      dueAt: new Date(at).toISOString(),
    });
  }

  const tokens = createTokens({
    ...deps,
    assertCapable: () => assertCapable('durableWaits'),
    keyOf,
  });
  const children = createChildJobs({
    ...deps,
    childKey: (key) =>
      (deps.hooks ?? DEFAULT_HOOKS).childKey(key, { attemptId: deps.attemptId ?? '' }),
    started: () => (deps.hooks ?? DEFAULT_HOOKS).at('after-child-start'),
    assertCapable: () => assertCapable('childJobs'),
    keyOf,
    wait,
  });
  return {
    waitForEvent,
    sleep,
    createToken: tokens.create,
    children,
  } as unknown as HandlerWaits;
}

/** The same for every attempt: stateless and frozen, so built once rather than per attempt. */
const IN_UNIT = refusingWaits(
  'waits and child jobs are not allowed in execute (a unit runs beside others): use prepare, apply or finalize',
);

/** Waits that refuse with a typed, non-retriable error (a unit, or a run without waits). */
export function refusingWaits(message: string): HandlerWaits {
  const refuse = (): Promise<never> => Promise.reject(new NonRetriableError(message));
  return Object.freeze({
    waitForEvent: refuse,
    sleep: refuse,
    createToken: refuse,
    children: Object.freeze({ start: refuse, wait: refuse }),
  }) as unknown as HandlerWaits;
}
