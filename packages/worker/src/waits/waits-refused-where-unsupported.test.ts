// Catches a wait that is silently ignored (or turned into a busy wait) where it cannot suspend:
// on a runtime without `durableWaits`/`childJobs` (a push platform that cannot suspend), and inside a unit's
// execute (a suspend there would leave sibling units running), every wait and child call fails
// the job with a non-retriable error that names why. Also the typing of `ctx.waitForEvent`.

import {
  defineJob,
  formatJobId,
  isNonRetriableError,
  isUnitsFailedError,
  type RuntimeCapabilities,
  type WaitResult,
} from '@sluice/contracts';
import type { SluiceDatabase } from '@sluice/storage';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineHandler, type Handler } from '../attempt/define-handler.js';
import { runStages } from '../attempt/stage-runner.js';
import { createStep } from '../attempt/step.js';
import { createAttemptWaits, type AttemptWaits } from './create-attempt-waits.js';

const job = defineJob({
  kind: 'demo.approve',
  versions: { current: 'v1' },
  input: z.object({ where: z.enum(['prepare', 'execute']) }),
  output: z.object({ ok: z.boolean() }),
  events: { approved: z.object({ ok: z.boolean() }) },
});

const caps = { memoizesSteps: false } as RuntimeCapabilities;

function run(h: Handler, input: unknown, waits?: AttemptWaits) {
  return runStages({
    handler: h,
    job: {
      id: formatJobId('v1'),
      kind: h.job.kind,
      version: 'v1',
      tenantId: 'a',
      attempts: 1,
      input,
    },
    signal: new AbortController().signal,
    events: { push: () => {} },
    step: createStep({ capabilities: caps }),
    files: { open: () => Promise.reject(new Error('no files')) },
    waits,
  });
}

const handler = defineHandler(job, {
  prepare: async (ctx) => {
    if (ctx.input.where === 'prepare') {
      const r = await ctx.waitForEvent('approved', { timeoutMs: 1000 });
      expectTypeOf(r).toEqualTypeOf<WaitResult<{ ok: boolean }>>();
      const plain = ctx.waitForEvent('approved');
      expectTypeOf(plain).resolves.toEqualTypeOf<{ ok: boolean }>();
      // @ts-expect-error the kind declares no such event
      void ctx.waitForEvent('rejected');
    }
    return [{ key: 'u', input: 1 }];
  },
  execute: async (_unit, ctx) => {
    if (ctx.input.where === 'execute') await ctx.sleep(10);
    return true;
  },
  finalize: () => ({ ok: true }),
});

/** Waits bound to nothing: every call that reaches the database would throw. */
function waitsWith(capabilities: Pick<RuntimeCapabilities, 'durableWaits' | 'childJobs'>) {
  return createAttemptWaits({
    database: {} as SluiceDatabase,
    capabilities,
    definition: job,
    job: { id: 'v1-x', tenantId: 'a', epoch: 1 },
    flush: () => Promise.reject(new Error('unreachable')),
    fence: () => ({ epoch: 1, lastSeq: 1 }),
    onSuspended: () => {},
    onFenced: () => {},
  });
}

describe('waits where the job cannot suspend', () => {
  it('a run without waits (durableWaits off) fails the job with a non-retriable error naming the capability', async () => {
    const error = await run(handler, { where: 'prepare' }).catch((e: unknown) => e);
    expect(isNonRetriableError(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/durableWaits/);
  });

  it('a runtime whose flags say no refuses waits and child jobs, naming the flag', async () => {
    const w = waitsWith({ durableWaits: false, childJobs: false }).forStage('prepare');
    const calls: (() => Promise<unknown>)[] = [
      () => w.sleep(10),
      () => w.createToken({ event: 'approved' as never, expiresIn: '1h' }),
      () => w.children.wait([]),
    ];
    for (const call of calls) {
      const error = await Promise.resolve()
        .then(call)
        .catch((e: unknown) => e);
      expect(isNonRetriableError(error)).toBe(true);
      expect(String((error as Error).message)).toMatch(/durableWaits|childJobs/);
    }
  });

  it("a unit's execute refuses waits even where the runtime has them", async () => {
    const error = await run(
      handler,
      { where: 'execute' },
      waitsWith({ durableWaits: true, childJobs: true }),
    ).catch((e: unknown) => e);
    expect(isUnitsFailedError(error)).toBe(true);
    const causes = (error as { causes: { error: Error }[] }).causes;
    expect(causes.map((c) => c.error.message)).toEqual([
      expect.stringMatching(/not allowed in execute/),
    ]);
  });
  it('a token lives at most 30 days: a longer or past expiry is refused before anything is written', async () => {
    const w = waitsWith({ durableWaits: true, childJobs: true }).forStage('prepare');
    const create = (expiresIn: string | number) =>
      Promise.resolve()
        .then(() => w.createToken({ event: 'approved' as never, expiresIn }))
        .then(
          () => new Error('stored'),
          (e: unknown) => e as Error,
        );
    for (const expiresIn of ['31d', 30 * 86_400_000 + 1, 0, -1000]) {
      const error = await create(expiresIn);
      expect(isNonRetriableError(error)).toBe(true);
      expect(error.message).toMatch(/at most 30 days/);
    }
    // 30 days passes the check and goes on to the database (unreachable here).
    expect((await create('30d')).message).toBe('unreachable');
  });
});
