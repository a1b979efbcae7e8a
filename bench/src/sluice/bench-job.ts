// The job every Sluice row runs: `bench.noop` v1, input `{ i, t }` (the harness payload), one
// unit, output `{ i }`. Shared by the worker children (rows 5), the gateway child (rows 6–8) and
// the prefill, so all of them agree on kind, version and schemas.
import { defineJob, defineJobs } from '@sluice/contracts';
import { defineHandler } from '@sluice/worker';
import { z } from 'zod';
import type { JobPayload } from '../adapter.js';

export const BENCH_KIND = 'bench.noop';
export const BENCH_VERSION = 'v1';
export const BENCH_TENANT = 'bench';

export const benchJob = defineJob({
  kind: BENCH_KIND,
  versions: { current: BENCH_VERSION },
  input: z.object({ i: z.number().int(), t: z.number() }),
  output: z.object({ i: z.number().int() }),
});

export const benchJobs = defineJobs(benchJob);

/**
 * The handler: its first line hands the payload to the harness (start latency, then the
 * scenario's no-op or sleep), then one unit runs and the output is returned. One unit, as real
 * handlers have at least one, so the attempt pays for the stage runner as real jobs do. The job id
 * lets a child find what its runtime saw of the job (the Streams child: the entry's dispatch stamp).
 */
export function benchHandler(onStart: (job: JobPayload, jobId: string) => Promise<void> | void) {
  return defineHandler(benchJob, {
    async prepare(ctx) {
      await onStart(ctx.input, ctx.jobId);
      return [{ key: 'only', input: ctx.input.i }];
    },
    execute: (unit) => unit.input,
    finalize: (_applied, ctx) => ({ i: ctx.input.i }),
  });
}

/** Row 10's provider: a local HTTP server the parent runs (harness/run-limits.ts). */
export const BENCH_PROVIDER = 'bench-provider';

export interface BenchProviderLimits {
  maxConcurrent: number;
  callsPerSecond: number;
}

/**
 * Row 10's job: the same kind, version and schemas as `bench.noop` (so the prefill serves it),
 * plus one provider call declared with shared limits; the worker resolves its limiter from the
 * definitions it is given, so this definition is what makes the call guarded and limited.
 */
export function limitedBenchJob(limits: BenchProviderLimits) {
  return defineJob({
    kind: BENCH_KIND,
    versions: { current: BENCH_VERSION },
    input: z.object({ i: z.number().int(), t: z.number() }),
    output: z.object({ i: z.number().int() }),
    providers: {
      provider: {
        provider: BENCH_PROVIDER,
        modality: 'text',
        call: 'sync',
        idempotencyKey: 'verified',
        evidence: 'the bench provider answers every request alike and bills nothing',
        limits,
      },
    },
  });
}

/** Row 10's handler: the harness hook first, then one unit making one guarded provider call. */
export function limitedBenchHandler(
  job: ReturnType<typeof limitedBenchJob>,
  providerUrl: string,
  onStart: (job: JobPayload) => Promise<void> | void,
) {
  return defineHandler(job, {
    async prepare(ctx) {
      await onStart(ctx.input);
      return [{ key: 'only', input: ctx.input.i }];
    },
    async execute(unit, ctx) {
      await ctx.providers.call('provider', { method: 'POST', url: `${providerUrl}/call` });
      return unit.input;
    },
    finalize: (_applied, ctx) => ({ i: ctx.input.i }),
  });
}
