// Jobs of the crash-recovery test (workers-crash-recovery.test.ts), served by the e2e Worker's v1
// Workflow: every unit makes one paid call through the guard right away, then holds for
// `holdMs` before it reports progress, so a kill lands after every call was billed and recorded
// and while the run is still going. `test.paid` may run 3 times, `test.paid-once` once.
import { defineJob } from '@sluice/contracts';
import { defineHandler } from '@sluice/worker/core';
import { z } from 'zod';

const input = z.object({
  providerUrl: z.string().max(200),
  units: z.number().int().min(1).max(4),
  holdMs: z.number().int().min(0).max(20_000),
});
const output = z.object({ answers: z.array(z.string()) });
const providers = {
  complete: { provider: 'fake', modality: 'text', call: 'sync', idempotencyKey: 'none' },
} as const;

function paidJob<K extends string>(kind: K, maxAttempts: number) {
  const job = defineJob({
    kind,
    versions: { current: 'v1' },
    input,
    output,
    providers,
    maxAttempts,
  });
  const handler = defineHandler(job, {
    prepare: (ctx) =>
      Array.from({ length: ctx.input.units }, (_, i) => ({ key: `u${i}`, input: i })),
    async execute(unit, ctx) {
      const answer = await ctx.providers.call('complete', (info) => ({
        method: 'POST',
        url: `${ctx.input.providerUrl}/complete`,
        headers: { 'x-job-id': info.jobId, 'x-unit-key': info.unitKey },
        body: { unit: unit.key },
      }));
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, ctx.input.holdMs);
        ctx.signal.addEventListener('abort', () => (clearTimeout(t), reject(ctx.signal.reason)), {
          once: true,
        });
      });
      ctx.progress({ unit: unit.key });
      return String((answer.body as { text?: unknown }).text);
    },
    apply: (results) => results.map((r) => r.result),
    finalize: (answers) => ({ answers }),
  });
  return { job, handler };
}

const paidDef = paidJob('test.paid', 3);
const paidOnceDef = paidJob('test.paid-once', 1);
export const paid = paidDef.job;
export const paidOnce = paidOnceDef.job;
export const paidHandlers = {
  'test.paid': { v1: paidDef.handler },
  'test.paid-once': { v1: paidOnceDef.handler },
};
