// `ctx.children`: start typed child jobs and wait for them. A start is ONE transaction fenced by
// the parent attempt's epoch (storage `startChild`): the child's idempotency key derives from the
// parent and the child's key, so every later run of the parent gets the same child back. The
// child is written `scheduled`, due at once, and the gateway's due-job scheduler dispatches it
// on any runtime. A wait is a durable wait of kind `children`: settled by the due sweep once
// all (or any) of them ended, with each child's typed result or typed failure.

import {
  chooseVersion,
  formatJobId,
  NonRetriableError,
  SluiceError,
  type AnyJobDefinition,
  type ChildOutcome,
} from '@sluice/contracts';
import { childIdempotencyKey, startChild, type SluiceDatabase } from '@sluice/storage/d1';
import { z } from 'zod';
import type { Settled, WaitSpec } from './create-attempt-waits.js';
import type { ChildHandle, ChildJobs, ChildResult } from './types.js';

export interface ChildJobsDeps {
  database: SluiceDatabase;
  job: { id: string; epoch: number };
  assertCapable(): void;
  keyOf(base: string, key: string | undefined): string;
  wait(spec: WaitSpec): Promise<Settled>;
  /** The key the child is started under (the caller's key). */
  childKey(key: string): string;
  /** The child's insert committed (a crash point). */
  started(): void;
  onFenced(): void;
  flush(): Promise<void>;
}

/** sha256 hex of the child's input as JSON (the idempotency fingerprint of a submit). */
async function inputHash(input: unknown): Promise<string> {
  const text = JSON.stringify({ input: input ?? null, fileIds: [] });
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function toResult(o: ChildOutcome): ChildResult {
  return o.ok
    ? { id: o.id, ok: true, state: 'succeeded', output: o.output }
    : { id: o.id, ok: false, state: o.state, error: o.error ?? null };
}

export function createChildJobs(deps: ChildJobsDeps): ChildJobs {
  return {
    async start<C extends AnyJobDefinition>(
      job: C,
      input: unknown,
      opts: { key: string; detached?: boolean },
    ): Promise<ChildHandle<C>> {
      deps.assertCapable();
      if (typeof opts?.key !== 'string' || opts.key.length === 0 || opts.key.length > 200)
        throw new NonRetriableError('children.start: key must be a non-empty string (≤ 200)');
      const parsed = z.safeParse(job.input, input);
      if (!parsed.success)
        throw new NonRetriableError(
          `children.start: the input does not match ${job.kind}'s input schema: ${parsed.error.message}`,
        );
      const key = deps.childKey(opts.key);
      // The version is chosen once from the child's idempotency key, like a submit's.
      const version = chooseVersion(childIdempotencyKey(deps.job.id, key), job.versions);
      await deps.flush();
      const answer = await startChild(deps.database, {
        parentId: deps.job.id,
        parentEpoch: deps.job.epoch,
        key,
        child: {
          id: formatJobId(version),
          tenantId: '',
          kind: job.kind,
          version,
          input,
          inputHash: await inputHash(input),
          maxAttempts: job.maxAttempts,
          priority: job.priority,
          detached: opts.detached === true,
        },
      });
      if (answer.kind === 'fenced') {
        deps.onFenced();
        throw new SluiceError('LEASE_LOST', 'this attempt no longer holds the job');
      }
      deps.started();
      return { id: answer.id, kind: job.kind };
    },

    async wait(handles, opts = {}) {
      deps.assertCapable();
      const ids = handles.map((h) => h.id);
      const settled = await deps.wait({
        waitKey: deps.keyOf('children', opts.key),
        kind: 'children',
        children: ids,
        mode: opts.mode ?? 'all',
      });
      const outcomes = (settled.value ?? []) as ChildOutcome[];
      return outcomes.map(toResult) as never;
    },
  };
}
