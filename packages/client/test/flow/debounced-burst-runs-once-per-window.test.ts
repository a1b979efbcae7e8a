// Catches a debounce that runs a burst more than once, or with an input that is not the last:
// two gateways (each its own database handle) take a burst of submits under one key at once,
// two workers run what comes due. Trailing: each window runs exactly once, with the input of the
// submit that committed last, after the burst; every submitter's handle names that one job and
// resolves with its output. Leading: the first submit runs at once and the rest of the window
// folds into it. Seeded bug `debounce-always-opens` (a window per submit) turns this red.
import { defineJob, defineJobs } from '@sluice/contracts';
import { defineHandler } from '@sluice/worker';
import { waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeFlowCluster } from '../fixtures/flow-cluster.js';

const rebuild = defineJob({
  kind: 'flow.rebuild',
  versions: { current: 'v1' },
  input: z.object({ site: z.string(), n: z.number().int() }),
  output: z.object({ n: z.number().int() }),
  // A window long enough that a burst of 17 submits fits in it on a loaded machine (at 400 ms a
  // full run's load let a window close mid-burst, and the rest opened a second one).
  debounce: { delayMs: 2_000, maxDelayMs: 10_000 },
});
const jobs = defineJobs(rebuild);

/** What each run saw: job id → the inputs it ran with (one entry per run). */
const runs = new Map<string, number[]>();
const handlers = {
  'flow.rebuild': {
    v1: defineHandler(rebuild, {
      prepare: (ctx) => [{ key: 'only', input: ctx.input.n }],
      execute: (unit, ctx) => {
        runs.set(ctx.jobId, [...(runs.get(ctx.jobId) ?? []), unit.input]);
        return unit.input;
      },
      finalize: (results) => ({ n: results[0]?.result ?? -1 }),
    }),
  },
};

describeFlowCluster('a debounced burst runs once per window', jobs, handlers, (cluster) => {
  it('trailing: a burst through both gateways runs once, with the last input', async () => {
    const [a, b] = cluster().clients;
    runs.clear();
    for (const [w, site] of ['alpha', 'beta', 'gamma'].entries()) {
      const burst = Array.from({ length: 16 }, (_, i) =>
        (i % 2 === 0 ? a : b).submit(
          'flow.rebuild',
          { site, n: w * 100 + i },
          { debounce: { key: site } },
        ),
      );
      const handles = await Promise.all(burst);
      // The last submit of the window, after the burst committed: its input must win.
      const last = await b.submit(
        'flow.rebuild',
        { site, n: w * 100 + 99 },
        { debounce: { key: site } },
      );
      const ids = new Set([...handles, last].map((h) => h.id));
      expect(ids.size).toBe(1);
      // Exactly one submit opened the window; every other one was folded into it.
      expect([...handles, last].filter((h) => !h.debounced)).toHaveLength(1);
      expect(last.debounced).toBe(true);
      const outputs = await Promise.all([...handles, last].map((h) => h.result()));
      expect(new Set(outputs.map((o) => o.n))).toEqual(new Set([w * 100 + 99]));
      const id = last.id;
      expect(runs.get(id)).toEqual([w * 100 + 99]);
    }
    // Quiet for longer than a window: nothing else ran.
    await new Promise((r) => setTimeout(r, 2_400));
    expect(runs.size).toBe(3);
    expect([...runs.values()].every((inputs) => inputs.length === 1)).toBe(true);
  });

  it('leading: the first submit runs at once and the rest of the window folds into it', async () => {
    const [a, b] = cluster().clients;
    const before = runs.size;
    const first = await a.submit(
      'flow.rebuild',
      { site: 'lead', n: 1 },
      { debounce: { key: 'lead', mode: 'leading', delayMs: 1_500 } },
    );
    expect(first.debounced).toBe(false);
    const rest = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? b : a).submit(
          'flow.rebuild',
          { site: 'lead', n: 2 + i },
          { debounce: { key: 'lead', mode: 'leading', delayMs: 1_500 } },
        ),
      ),
    );
    expect(rest.every((h) => h.id === first.id && h.debounced)).toBe(true);
    expect(await first.result()).toEqual({ n: 1 });
    await waitFor(() => runs.has(first.id));
    expect(runs.size).toBe(before + 1);
    expect(runs.get(first.id)).toEqual([1]);
  });
});
