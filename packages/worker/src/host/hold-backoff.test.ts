// A job held by a `maxRunning` limit whose slot stays taken is claimed again only as often as the
// hold's back-off makes it due (host/start-gate.ts `holdDelayMs`): every due time costs a claim
// and a hold write of a job that still cannot start. Counted by the claims themselves: each claim
// raises the job's epoch by one, and a hold leaves it raised.
// On the embedded runtime below a held job waits on the limit's waiting list instead (no due
// time until a wake or the backstop: limit-waiting-list.test.ts), which keeps within this bound
// too; the back-off itself is what transports that bring held jobs back use (`holdDelayMs`).
import { defineJob, formatJobId } from '@sluice/contracts';
import { acceptJobs, getJobsByIds } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../attempt/define-handler.js';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { createWorker } from '../create-worker.js';
import { startLimitWorkers, settleJobs } from '../testing/limit-workers.js';
import { holdDelayMs, START_HOLD_MAX_MS, START_HOLD_MS } from './start-gate.js';

/** Due times of a job held from 0 for `windowMs` with a slot that never frees. */
function claimsWhileHeld(windowMs: number, baseMs: number, maxMs: number): number {
  const since = new Date(0).toISOString();
  let claims = 0;
  for (let t = 0; t < windowMs; t += holdDelayMs(since, t, baseMs, maxMs)) claims++;
  return claims;
}

describe('holdDelayMs', () => {
  it('a job held for 30 s with the defaults is due 9 times, not every second (30)', () => {
    expect(claimsWhileHeld(30_000, START_HOLD_MS, START_HOLD_MAX_MS)).toBe(9);
  });

  it('the first hold is as short as before; the delay never passes the cap nor drops under the base', () => {
    const since = new Date(10_000).toISOString();
    expect(holdDelayMs(since, 10_000, 1_000, 5_000)).toBe(1_000);
    expect(holdDelayMs(since, 12_500, 1_000, 5_000)).toBe(2_500);
    expect(holdDelayMs(since, 60_000, 1_000, 5_000)).toBe(5_000);
    // A cap under the base (misconfigured) leaves the base; an unreadable `since` too.
    expect(holdDelayMs(since, 60_000, 1_000, 10)).toBe(1_000);
    expect(holdDelayMs('not a time', 60_000, 1_000, 5_000)).toBe(1_000);
  });
});

const BLOCK_MS = 3_000;

const job = defineJob({
  kind: 'hold.backoff',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ ok: z.boolean() }),
  maxAttempts: 1,
  limits: { maxRunning: 1 },
});

describeEachDialect('the hold delays are checked when the worker is made', (ctx) => {
  it('a negative or fractional limitHoldMaxMs / limitHoldMs is INVALID_CONFIG naming the field', () => {
    const { database } = ctx();
    const make = (hold: { limitHoldMs?: number; limitHoldMaxMs?: number }) => () =>
      createWorker({
        jobs: { [job.kind]: job },
        handlers: {
          [job.kind]: {
            v1: defineHandler(job, {
              prepare: () => [],
              execute: () => 1,
              finalize: () => ({ ok: true }),
            }),
          },
        },
        database,
        concurrency: 1,
        runtime: (c) => createEmbeddedRuntime({ database, ...c }),
        ...hold,
      } as Parameters<typeof createWorker>[0]);
    expect(make({ limitHoldMaxMs: -1 })).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        message: expect.stringMatching(/limitHoldMaxMs/),
      }),
    );
    expect(make({ limitHoldMs: 0.5 })).toThrow(/limitHoldMs/);
  });
});

describeEachDialect('a held job backs off while its slot stays taken', (ctx) => {
  it(`claimed at most 15 times while the one slot is held for ${BLOCK_MS} ms (50 ms base: 60 without back-off)`, async () => {
    const test = ctx();
    let started = 0;
    const handler = defineHandler(job, {
      prepare: () => [{ key: 'u', input: 0 }],
      execute: async (_u, c) => {
        started++;
        if (c.input.n === 0) await new Promise((r) => setTimeout(r, BLOCK_MS));
        return 1;
      },
      finalize: () => ({ ok: true }),
    });
    const row = (n: number) => ({
      id: formatJobId('v1'),
      tenantId: 't',
      kind: job.kind,
      version: 'v1',
      input: { n },
      inputHash: `h${n}`,
      maxAttempts: 1,
      outcome: { to: 'queued' as const },
    });
    const blocker = row(0);
    const held = row(1);
    await acceptJobs(test.database, [blocker]);
    const workers = await startLimitWorkers({
      count: 1,
      job,
      handler,
      runtime: 'embedded',
      database: test.database,
      open: test.open,
      concurrency: 4,
      overrides: { limitHoldMs: 50, limitHoldMaxMs: 400 },
    });
    try {
      await waitFor(() => started === 1, { timeoutMs: 10_000, message: 'blocker started' });
      await acceptJobs(test.database, [held]);
      const rows = await settleJobs(test.database, [blocker.id, held.id]);
      expect(rows.map((r) => r.state).sort()).toEqual(['succeeded', 'succeeded']);
      const epoch = (await getJobsByIds(test.database.db, [held.id])).get(held.id)?.epoch;
      // Due at 50, 100, 200, 400, then every 400 ms: ~10 claims in 3 s, and the one that ran.
      expect(epoch).toBeLessThanOrEqual(15);
    } finally {
      await Promise.all(workers.map((w) => w.stop({ deadlineMs: 2_000 })));
    }
  });
});
