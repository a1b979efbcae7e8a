// The handler's view of durable waits and child jobs: `ctx.waitForEvent`, `ctx.sleep`,
// `ctx.createToken` and `ctx.children`, typed from the job definition (its `events`) and from
// the child's definition. Allowed in prepare, apply and finalize; a unit's `execute` refuses
// them (a suspend must end the whole attempt at one point, with no sibling unit still running).

import type {
  AnyJobDefinition,
  inferJobEventName,
  JobError,
  JobState,
  WaitResult,
} from '@sluice/contracts';
import type { z } from 'zod';

/** A wait's key within the run; default: the call's order (`event:approved#1`, `sleep#2`). */
export interface WaitKeyOption {
  /** Name the wait yourself when calls can come in a different order between runs. */
  key?: string;
}

/** The payload a handler reads for event `E`: the output side of its schema. */
export type EventPayload<J extends AnyJobDefinition, E extends string> = E extends keyof J['events']
  ? z.output<J['events'][E]>
  : never;

export interface TokenHandle {
  /** When the token stops working (ISO). */
  readonly expiresAt: string;
  /**
   * The token and its path on the gateway (`/v1/tokens/<token>`), in the run that created it;
   * a later run (a replay after the resume) gets null: only the token's hash is stored.
   */
  readonly token: string | null;
  readonly path: string | null;
}

/** A started child, typed by its job definition. */
export interface ChildHandle<C extends AnyJobDefinition = AnyJobDefinition> {
  readonly id: string;
  readonly kind: C['kind'];
  /** Type-only: the child's definition (never set at runtime). */
  readonly __job?: C;
}

/** How a child ended, as its parent reads it; `ok: false` covers every other end, typed. */
export type ChildResult<C extends AnyJobDefinition = AnyJobDefinition> =
  | {
      readonly id: string;
      readonly ok: true;
      readonly state: 'succeeded';
      readonly output: z.output<C['output']>;
    }
  | {
      readonly id: string;
      readonly ok: false;
      /** A terminal state, or (mode `any`) a child still running. */
      readonly state: JobState;
      readonly error: JobError | null;
    };

export type ChildResults<H extends readonly ChildHandle[]> = {
  -readonly [I in keyof H]: H[I] extends ChildHandle<infer C> ? ChildResult<C> : never;
};

export interface ChildJobs {
  /**
   * Starts a child job of `job`'s kind (checked with its input schema). One child per
   * (parent, key) whatever runs again; `detached` children survive their parent's cancel.
   */
  start<C extends AnyJobDefinition>(
    job: C,
    input: z.input<C['input']>,
    opts: { key: string; detached?: boolean },
  ): Promise<ChildHandle<C>>;
  /** Suspends until all (or any) of these children ended; their results in the same order. */
  wait<const H extends readonly ChildHandle[]>(
    handles: H,
    opts?: WaitKeyOption & { mode?: 'all' | 'any' },
  ): Promise<ChildResults<H>>;
}

export interface HandlerWaits<J extends AnyJobDefinition = AnyJobDefinition> {
  /**
   * Suspends until a signal of this event arrives (`client.jobs.signal(id, name, payload)` or a
   * token); a signal sent earlier is taken at once. With `timeoutMs` it resolves to
   * `{ timedOut: true }` once that passes.
   */
  waitForEvent<E extends inferJobEventName<J>>(
    name: E,
    opts: WaitKeyOption & { timeoutMs: number },
  ): Promise<WaitResult<EventPayload<J, E>>>;
  waitForEvent<E extends inferJobEventName<J>>(
    name: E,
    opts?: WaitKeyOption,
  ): Promise<EventPayload<J, E>>;
  /** Suspends for `ms`, or until a time (a `Date` or ISO text); holds nothing meanwhile. */
  sleep(duration: number | Date | string, opts?: WaitKeyOption): Promise<void>;
  /**
   * A single-use token that sends `event` to this job when completed at `/v1/tokens/<token>`
   * (no API key: the token is the authority). Wait for it with `ctx.waitForEvent(event)`.
   */
  createToken<E extends inferJobEventName<J>>(
    opts: WaitKeyOption & { event: E; expiresIn: number | string },
  ): Promise<TokenHandle>;
  readonly children: ChildJobs;
}
