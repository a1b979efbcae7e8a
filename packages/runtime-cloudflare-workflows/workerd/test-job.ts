// The job the workerd tests run: units that leave a row in D1 each time their execute runs (the
// proof of what re-ran, counted outside the engine), report progress, may wait for a gate row
// (so a test can crash, fence or replay the instance mid-unit) and may call the fake provider
// through the guard (a sync call with no idempotency key: ambiguous on failure).
import { defineJob } from '@sluice/contracts';
import { d1All } from '@sluice/storage/d1';
import { z } from 'zod';
import { defineHandler } from '@sluice/worker/core';
import { bindings } from './bindings.js';

export const testJob = defineJob({
  kind: 'test.paid',
  versions: { current: 'v1', next: 'v2', rolloutPercent: 0 },
  input: z.object({
    providerUrl: z.string(),
    units: z.number().int().min(1).max(10),
    call: z.boolean(),
    /** The fake provider's fault for every call of this job (x-fault). */
    fault: z.enum(['commit-then-drop', 'http-5xx']).optional(),
    /** Bytes of padding on every unit prepare returns (its step result grows with it). */
    padBytes: z.number().int().min(0).optional(),
    /** Units call the provider's async-job endpoint (pollable) instead of the sync one. */
    asyncCall: z.boolean().optional(),
    /** Every unit writes an asset (`ctx.assets.write`). */
    writeAsset: z.boolean().optional(),
    /** The asset's body streams only once the job's gate row exists (fence a takeover mid-write). */
    gateAssetBody: z.boolean().optional(),
    /** Every unit also runs a step of its own (`ctx.step`) with this name prefix. */
    innerStep: z.string().optional(),
    /** Units call the `limited` provider (one call at a time across instances; each slow). */
    limitedCall: z.boolean().optional(),
    /** This unit throws a retriable error on every run. */
    failUnit: z.string().optional(),
    /** This unit waits for a `test_gate` row of its job before it calls the provider. */
    gateUnit: z.string().optional(),
    progress: z.number().int().min(0).max(5),
  }),
  output: z.object({ total: z.number(), version: z.string() }),
  progress: z.object({ unit: z.string(), n: z.number() }),
  providers: {
    sync: { provider: 'fake', modality: 'text', call: 'sync', idempotencyKey: 'none' },
    async: { provider: 'fake', modality: 'video', call: 'async-job', idempotencyKey: 'none' },
    limited: {
      provider: 'fake-limited',
      modality: 'text',
      call: 'sync',
      idempotencyKey: 'none',
      limits: { maxConcurrent: 1 },
    },
  },
});

/** How long the provider takes over each `limited` call. */
export const LIMITED_CALL_MS = 400;

export const TEST_TABLES = [
  'create table if not exists test_exec (job_id text, unit_key text, at text)',
  'create table if not exists test_gate (job_id text primary key, mode text)',
  'create table if not exists test_runs (instance_id text, at text)',
  'create table if not exists test_gate_passed (job_id text, unit_key text)',
  'create table if not exists test_dlq (body text)',
];

/** Waits for the job's gate row; says how it was opened (`open`, or `fail-once`). */
async function waitForGate(jobId: string, signal: AbortSignal): Promise<string> {
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    signal.throwIfAborted();
    const [row] = await d1All<{ mode: string }>(
      bindings.DB,
      'select mode from test_gate where job_id = ?',
      jobId,
    );
    if (row) return row.mode;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gate of ${jobId} never opened`);
}

export function testHandler(version: string) {
  return defineHandler(testJob, {
    prepare: (ctx) =>
      Array.from({ length: ctx.input.units }, (_, i) => ({
        key: `u${i}`,
        input: i + 1,
        ...(ctx.input.padBytes ? { pad: 'x'.repeat(ctx.input.padBytes) } : {}),
      })),
    execute: async (unit, ctx) => {
      await bindings.DB.prepare('insert into test_exec (job_id, unit_key, at) values (?, ?, ?)')
        .bind(ctx.jobId, unit.key, new Date().toISOString())
        .run();
      for (let n = 0; n < ctx.input.progress; n++) ctx.progress({ unit: unit.key, n });
      if (ctx.input.failUnit === unit.key) throw new Error(`${unit.key} always fails`);
      if (ctx.input.writeAsset) {
        const text = `made by ${unit.key}`;
        const gated = ctx.input.gateAssetBody;
        const body = gated
          ? new ReadableStream<Uint8Array>({
              async pull(controller) {
                await waitForGate(ctx.jobId, ctx.signal);
                controller.enqueue(new TextEncoder().encode(text));
                controller.close();
              },
            })
          : text;
        await ctx.assets.write({ name: `${unit.key}.txt`, body });
      }
      if (ctx.input.innerStep) {
        const inner = await ctx.step(`${ctx.input.innerStep}${unit.key}`, async () => unit.input);
        if (inner !== unit.input) throw new Error(`inner step answered ${String(inner)}`);
      }
      if (ctx.input.gateUnit === unit.key) {
        const mode = await waitForGate(ctx.jobId, ctx.signal);
        await d1All(
          bindings.DB,
          'insert into test_gate_passed (job_id, unit_key) values (?, ?)',
          ctx.jobId,
          unit.key,
        );
        const [ran] = await d1All<{ n: number }>(
          bindings.DB,
          'select count(*) as n from test_exec where job_id = ? and unit_key = ?',
          ctx.jobId,
          unit.key,
        );
        // A transient failure before the provider call, on the unit's first run only.
        if (mode === 'fail-once' && Number(ran?.n) === 1) throw new Error('transient failure');
      }
      if (ctx.input.call && ctx.input.asyncCall) {
        const url = ctx.input.providerUrl;
        await ctx.providers.call(
          'async',
          (info) => ({
            method: 'POST',
            url: `${url}/v1/async/jobs`,
            headers: { 'x-job-id': info.jobId, 'x-unit-key': info.unitKey },
            body: { prompt: unit.key },
          }),
          {
            asyncJob: {
              externalId: (a) =>
                String((a.body as { externalJobId?: unknown }).externalJobId ?? ''),
              poll: (id, info) => ({
                url: `${url}/v1/async/jobs/${encodeURIComponent(id)}`,
                headers: { 'x-job-id': info.jobId, 'x-unit-key': info.unitKey },
              }),
              status: (a) => {
                const st = (a.body as { status?: unknown }).status;
                return st === 'running' ? 'running' : st === 'succeeded' ? 'succeeded' : 'failed';
              },
              intervalMs: 20,
            },
          },
        );
      } else if (ctx.input.limitedCall) {
        await ctx.providers.call('limited', (info) => ({
          method: 'POST',
          url: `${ctx.input.providerUrl}/v1/sync/generate`,
          headers: {
            'x-job-id': info.jobId,
            'x-unit-key': info.unitKey,
            'x-attempt-id': info.attemptId,
            'x-fault': 'slow',
            'x-fault-delay-ms': String(LIMITED_CALL_MS),
          },
          body: { prompt: unit.key },
        }));
      } else if (ctx.input.call) {
        await ctx.providers.call('sync', (info) => ({
          method: 'POST',
          url: `${ctx.input.providerUrl}/v1/sync/generate`,
          headers: {
            'x-job-id': info.jobId,
            'x-unit-key': info.unitKey,
            'x-attempt-id': info.attemptId,
            ...(ctx.input.fault ? { 'x-fault': ctx.input.fault } : {}),
          },
          body: { prompt: unit.key },
        }));
      }
      return unit.input;
    },
    apply: (results) => results.reduce((s, r) => s + r.result, 0),
    finalize: (total) => ({ total, version }),
  });
}
