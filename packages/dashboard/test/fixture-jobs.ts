// The suite's job: `batch.summarize` pays the testkit fake provider once per unit through its
// retry-safe endpoint (a verified idempotency key), so an outage is retried, dead-letters the job
// once attempts run out, and a requeue sends only the calls never answered. `review` parks the job
// in needs_review from its one unit (an ambiguous call the provider dropped after billing).
import { defineJob, defineJobs } from '@sluice/contracts';
import { FAKE_PROVIDER_PATHS } from '@sluice/testkit';
import { defineHandler, type CallInfo } from '@sluice/worker';
import { z } from 'zod';

export const summarize = defineJob({
  kind: 'batch.summarize',
  versions: { current: 'v1' },
  input: z
    .object({
      doc: z.string(),
      units: z.number().int().min(1).max(5).default(2),
      // A credential the submitter passes through: operators see it redacted.
      apiKey: z.string().optional(),
    })
    .strict(),
  output: z.object({ summary: z.string() }),
  redact: ['input.apiKey'],
  providers: {
    summarize: {
      provider: 'fake',
      modality: 'text',
      call: 'sync',
      idempotencyKey: 'verified',
      evidence: 'testkit fake provider: POST /v1/safe/generate deduplicates by Idempotency-Key',
    },
    classify: { provider: 'fake', modality: 'text', call: 'sync', idempotencyKey: 'none' },
  },
  maxAttempts: 2,
});
export const jobs = defineJobs(summarize);
export type Jobs = typeof jobs;

const headers = (info: CallInfo) => ({
  'x-job-id': info.jobId,
  'x-unit-key': info.unitKey,
  'x-attempt-id': info.attemptId,
});

export function summarizeHandler(providerUrl: string) {
  return defineHandler(summarize, {
    prepare: (ctx) =>
      Array.from({ length: ctx.input.units }, (_, i) => ({ key: `u${i}`, input: i })),
    execute: async (unit, ctx) => {
      // A doc named review-* asks the ambiguous endpoint: a dropped answer parks the job.
      const ambiguous = ctx.input.doc.startsWith('review-');
      const answer = await ctx.providers.call(ambiguous ? 'classify' : 'summarize', (info) => ({
        method: 'POST',
        url: `${providerUrl}${FAKE_PROVIDER_PATHS[ambiguous ? 'sync' : 'safe']}`,
        headers: headers(info),
        body: { prompt: `${ctx.input.doc} part ${unit.input}` },
      }));
      return String((answer.body as { result?: { output?: string } }).result?.output ?? '');
    },
    finalize: (results) => ({ summary: results.map((r) => r.result).join(' | ') }),
  });
}
