// A job that pays a provider per unit, for the retry-safety suites: `xp.paid` calls the testkit
// fake provider through the guard with one of four declarations — `sync` (ambiguous), `async`
// (pollable async job), `safe` (verified idempotency key, retry-safe) and `unverified` ("verified"
// without evidence: fail-closed). `stage` moves the call to another stage (which the guard must
// refuse). Lines on stdout (`EXECUTE`, `FINALIZE`) let cross-process tests see what ran where.

import { defineJob, formatJobId, type MessagePointer } from '@sluice/contracts';
import { insertJob, transitionJob, type Db, type SluiceDatabase } from '@sluice/storage';
import { FAKE_PROVIDER_PATHS } from '@sluice/testkit';
import { z } from 'zod';
import { defineHandler, type HandlerContext } from '../attempt/define-handler.js';
import type { AsyncJobSpec, CallInfo, ProviderRequest } from '../guard/types.js';

export const PAID_CALLS = ['sync', 'async', 'safe', 'unverified', 'undeclared'] as const;
export type PaidCall = (typeof PAID_CALLS)[number];

export const paidJob = defineJob({
  kind: 'xp.paid',
  versions: { current: 'v1' },
  input: z.object({
    call: z.enum(PAID_CALLS),
    units: z.number().int().min(1).max(20).default(1),
    stage: z.enum(['prepare', 'execute', 'apply', 'finalize', 'after-unit']).default('execute'),
    /** A plain (retriable) error in this unit on the first attempt, after its call. */
    failOnce: z.string().optional(),
    /** finalize throws a plain (retriable) error on the first attempt. */
    finalizeFailsOnce: z.boolean().default(false),
    progress: z.number().int().min(0).max(200).default(0),
    /** Each unit writes `out.bin` through ctx.assets, its bytes tagged by worker and attempt. */
    asset: z.boolean().default(false),
    /** finalize writes `final.bin` (the final render), tagged the same way. */
    finalAsset: z.boolean().default(false),
  }),
  output: z.object({ results: z.array(z.string()), finalizedBy: z.string() }),
  progress: z.object({ n: z.number() }),
  providers: {
    sync: { provider: 'fake', modality: 'text', call: 'sync', idempotencyKey: 'none' },
    async: { provider: 'fake', modality: 'video', call: 'async-job', idempotencyKey: 'none' },
    safe: {
      provider: 'fake',
      modality: 'speech',
      call: 'sync',
      idempotencyKey: 'verified',
      evidence: 'testkit fake provider: POST /v1/safe/generate deduplicates by Idempotency-Key',
    },
    unverified: { provider: 'fake', modality: 'speech', call: 'sync', idempotencyKey: 'verified' },
  },
  maxAttempts: 5,
});

const ENDPOINT: Record<PaidCall, keyof typeof FAKE_PROVIDER_PATHS> = {
  sync: 'sync',
  async: 'async',
  safe: 'safe',
  unverified: 'safe',
  undeclared: 'sync',
};

function request(url: string, call: PaidCall) {
  return (info: CallInfo): ProviderRequest => ({
    method: 'POST',
    url: `${url}${FAKE_PROVIDER_PATHS[ENDPOINT[call]]}`,
    headers: { 'x-job-id': info.jobId, 'x-unit-key': info.unitKey, 'x-attempt-id': info.attemptId },
    body: { prompt: `${info.unitKey} please` },
  });
}

function asyncJob(url: string): AsyncJobSpec {
  return {
    externalId: (a) => String((a.body as { externalJobId?: unknown }).externalJobId ?? ''),
    poll: (id, info) => ({
      url: `${url}/v1/async/jobs/${encodeURIComponent(id)}`,
      headers: { 'x-job-id': info.jobId, 'x-unit-key': info.unitKey },
    }),
    status: (a) => {
      const s = (a.body as { status?: unknown }).status;
      return s === 'running' ? 'running' : s === 'succeeded' ? 'succeeded' : 'failed';
    },
    intervalMs: 30,
  };
}

/** A "render": 64 KiB streamed in 16 chunks, its content naming who made it. */
async function* render(tag: string): AsyncGenerator<Uint8Array> {
  const line = Buffer.from(`${tag}\n`);
  for (let i = 0; i < 16; i++) {
    const chunk = Buffer.alloc(4096);
    for (let o = 0; o < chunk.length; o += line.length) line.copy(chunk, o);
    yield chunk;
  }
}

export interface PaidHandlerOptions {
  providerUrl: string;
  workerId: string;
  log?: ((line: string) => void) | undefined;
}

type Ctx = HandlerContext<typeof paidJob>;

export function paidHandler(opts: PaidHandlerOptions) {
  const log = opts.log ?? (() => {});
  const callOnce = async (ctx: Ctx, call: PaidCall) => {
    const answer = await ctx.providers.call(
      call,
      request(opts.providerUrl, call),
      call === 'async' ? { asyncJob: asyncJob(opts.providerUrl) } : {},
    );
    const body = answer.body as { result?: { output?: string } };
    return String(body.result?.output ?? '');
  };
  return defineHandler(paidJob, {
    prepare: async (ctx) => {
      if (ctx.input.stage === 'prepare') await callOnce(ctx, ctx.input.call);
      return Array.from({ length: ctx.input.units }, (_, i) => ({ key: `u${i}`, input: i }));
    },
    execute: async (unit, ctx) => {
      log(`EXECUTE ${ctx.jobId} ${unit.key} ${ctx.attempt}`);
      for (let i = 0; i < ctx.input.progress; i++) ctx.progress({ n: unit.input * 1000 + i });
      if (ctx.input.stage === 'after-unit') {
        // An untethered call: started inside execute, never awaited by it.
        const late = ctx.providers;
        setTimeout(
          () =>
            void callOnce({ ...ctx, providers: late }, ctx.input.call).catch((e) =>
              log(`LATE ${String(e)}`),
            ),
          50,
        );
        return 'untethered';
      }
      if (ctx.input.stage !== 'execute') return `unit ${unit.key}`;
      const out = await callOnce(ctx, ctx.input.call);
      if (ctx.input.asset) {
        const asset = await ctx.assets.write({
          name: 'out.bin',
          body: render(`${unit.key} ${out} by ${opts.workerId} attempt ${ctx.attempt}`),
          contentType: 'application/octet-stream',
        });
        log(
          `ASSET ${ctx.jobId} ${unit.key} ${asset.reused ? 'reused' : 'published'} ${asset.sha256}`,
        );
      }
      if (ctx.input.failOnce === unit.key && ctx.attempt === 1)
        throw new Error(`flaky ${unit.key}`);
      return out;
    },
    apply: async (results, ctx) => {
      if (ctx.input.stage === 'apply') await callOnce(ctx, ctx.input.call);
      return results.map((r) => String(r.result));
    },
    finalize: async (results, ctx) => {
      log(`FINALIZE ${ctx.jobId} ${ctx.attempt}`);
      if (ctx.input.stage === 'finalize') await callOnce(ctx, ctx.input.call);
      if (ctx.input.finalAsset) {
        const final = await ctx.assets.write({
          name: 'final.bin',
          body: render(`final ${results.join(',')} by ${opts.workerId} attempt ${ctx.attempt}`),
        });
        log(`ASSET ${ctx.jobId} finalize ${final.reused ? 'reused' : 'published'} ${final.sha256}`);
      }
      if (ctx.input.finalizeFailsOnce && ctx.attempt === 1) throw new Error('finalize flaked');
      return { results, finalizedBy: opts.workerId };
    },
  });
}

/** Inserts `xp.paid` jobs as the accept path does (row, dispatch, pointer in one transaction). */
export async function submitPaidJobs(
  database: SluiceDatabase,
  inputs: readonly z.input<typeof paidJob.input>[],
  enqueue: (tx: Db, pointers: readonly MessagePointer[]) => Promise<void>,
): Promise<string[]> {
  const pointers = inputs.map(() => ({
    jobId: formatJobId('v1'),
    kind: paidJob.kind,
    version: 'v1',
    tenantId: 'acme',
  }));
  await database.transaction(async (tx) => {
    for (const [i, p] of pointers.entries()) {
      await insertJob(tx, {
        id: p.jobId,
        tenantId: p.tenantId,
        kind: p.kind,
        version: p.version,
        input: inputs[i],
        inputHash: p.jobId,
        maxAttempts: paidJob.maxAttempts,
      });
      await transitionJob(tx, { id: p.jobId, event: 'dispatch' });
    }
    await enqueue(tx, pointers);
  });
  return pointers.map((p) => p.jobId);
}
