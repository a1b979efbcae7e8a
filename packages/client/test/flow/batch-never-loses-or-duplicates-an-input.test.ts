// Catches a batch that loses, duplicates or misroutes an input: two gateways (each its own
// database handle) take a stream of submits of one batch key at the same time, two workers run
// the batches. Every input is run exactly once across all batch runs, no run holds more than
// `maxSize`, and every submitter's handle resolves with the share computed from its own input.
// A batch handler that returns the wrong number of outputs fails the run (no share is handed to
// the wrong submitter). Seeded bug `batch-ignores-max-size` (appends to a full batch) turns this
// red.
import { defineJob, defineJobs } from '@sluice/contracts';
import { defineHandler } from '@sluice/worker';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { isJobFailedError } from '../../src/index.js';
import { describeFlowCluster } from '../fixtures/flow-cluster.js';

const MAX_SIZE = 8;
const embed = defineJob({
  kind: 'flow.embed',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int(), drop: z.boolean().optional() }),
  output: z.object({ double: z.number().int(), size: z.number().int() }),
  batch: { maxSize: MAX_SIZE, maxWaitMs: 250 },
  maxAttempts: 1,
});
const jobs = defineJobs(embed);

/** Every batch run's inputs (`n`), by job id. */
const runs = new Map<string, number[]>();
const handlers = {
  'flow.embed': {
    v1: defineHandler(embed, {
      // One unit per input, keyed by its position: the same on every retry.
      prepare: (ctx) => ctx.input.map((input, i) => ({ key: `i${i}`, input })),
      execute: (unit) => unit.input.n * 2,
      finalize: (results, ctx) => {
        runs.set(
          ctx.jobId,
          ctx.input.map((i) => i.n),
        );
        const outputs = results.map((r) => ({ double: r.result, size: results.length }));
        // A handler that drops one output: the run must fail rather than misalign the shares.
        return ctx.input.some((i) => i.drop) ? outputs.slice(1) : outputs;
      },
    }),
  },
};

describeFlowCluster('a batch never loses or duplicates an input', jobs, handlers, (cluster) => {
  it('every input runs exactly once, in batches of at most maxSize, each share its own', async () => {
    const [a, b] = cluster().clients;
    runs.clear();
    const count = 60;
    const handles = await Promise.all(
      Array.from({ length: count }, (_, n) =>
        (n % 2 === 0 ? a : b).submit('flow.embed', { n }, { batch: { key: 'docs' } }),
      ),
    );
    const results = await Promise.all(handles.map((h) => h.result()));
    results.forEach((r, n) => expect(r.double).toBe(n * 2));
    const ran = [...runs.values()].flat().sort((x, y) => x - y);
    expect(ran).toEqual(Array.from({ length: count }, (_, n) => n));
    for (const inputs of runs.values()) expect(inputs.length).toBeLessThanOrEqual(MAX_SIZE);
    // Every handle names its batch and its place in it.
    for (const [n, h] of handles.entries()) {
      expect(runs.get(h.id)?.[h.batchIndex as number]).toBe(n);
    }
    // A handle rebuilt from the id and the index resolves with the same share.
    const seventh = handles[7];
    const rebuilt = b.job(seventh?.id as string, 'flow.embed', { batchIndex: seventh?.batchIndex });
    expect(await rebuilt.result()).toEqual(results[7]);
    // Batches filled up rather than each input running alone.
    expect(runs.size).toBeLessThan(count);
  });

  it('a batch whose handler returns too few outputs fails every share', async () => {
    const [a, b] = cluster().clients;
    const handles = await Promise.all([
      a.submit('flow.embed', { n: 1, drop: true }, { batch: { key: 'short' } }),
      b.submit('flow.embed', { n: 2 }, { batch: { key: 'short' } }),
    ]);
    expect(handles[0].id).toBe(handles[1].id);
    for (const h of handles) {
      const error = await h.result().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isJobFailedError(error)).toBe(true);
    }
  });
});
