// How a team unit-tests its handlers with @sluice/worker/testing: the real worker runs the job
// in-process on in-memory SQLite, a fake provider bills like a real one (and fails on demand),
// and crash points show what a retry does after the worker dies at the worst moment.

import { defineJob } from '@sluice/contracts';
import { defineHandler } from '@sluice/worker';
import { runJob, startFakeProvider } from '@sluice/worker/testing';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type * as Handlers from './handlers.js';
import { summarize } from './jobs.js';

const TEXT = 'Sluice runs paid work. It retries safely. Nothing is billed twice.';
let summarizeV1: typeof Handlers.summarizeV1;
beforeAll(async () => {
  // The demo pretends each sentence takes 300 ms; a test has no reason to wait.
  vi.stubEnv('DEMO_UNIT_DELAY_MS', '5');
  ({ summarizeV1 } = await import('./handlers.js'));
});

const progressOf = (events: { type: string }[]) => events.filter((e) => e.type === 'progress');

describe('demo.summarize', () => {
  it('summarises one sentence per unit and reports progress per sentence', async () => {
    const run = await runJob({ job: summarize, handler: summarizeV1, input: { text: TEXT } });
    expect(run.state).toBe('succeeded');
    expect(run.output?.words).toBe(11);
    expect(progressOf(run.events)).toHaveLength(3);
  });

  it('a worker that dies while finalizing: another worker finishes the job with the same summary', async () => {
    const clean = await runJob({ job: summarize, handler: summarizeV1, input: { text: TEXT } });
    const run = await runJob({
      job: summarize,
      handler: summarizeV1,
      input: { text: TEXT },
      crashAt: { point: 'during-finalize' },
    });
    expect(run.crashedAt).toBe('during-finalize');
    expect(run.state).toBe('succeeded');
    expect(run.row.attempts).toBe(2);
    expect(run.output).toEqual(clean.output);
  });
});

// A paid call: what happens when the provider bills and the answer is lost on the way back?
const translate = defineJob({
  kind: 'demo.translate',
  versions: { current: 'v1' },
  input: z.object({ text: z.string() }),
  output: z.object({ text: z.string() }),
  providers: {
    // A plain synchronous call with no idempotency key: a lost answer leaves it in doubt.
    translate: { provider: 'acme-mt', modality: 'text', call: 'sync', idempotencyKey: 'none' },
  },
});

const translateWith = (providerUrl: string) =>
  defineHandler(translate, {
    prepare: () => [{ key: 'all', input: null }],
    execute: async (_unit, ctx) => {
      const answer = await ctx.providers.call('translate', {
        method: 'POST',
        url: `${providerUrl}/translate`,
        body: { text: ctx.input.text },
      });
      return (answer.body as { echo: { text: string } }).echo.text;
    },
    finalize: ([first]) => ({ text: String(first?.result) }),
  });

describe('demo.translate', () => {
  it('a provider that bills and drops the connection is not called again: the job waits for a person', async () => {
    await using provider = await startFakeProvider({ faults: [{ fault: 'commit-then-drop' }] });
    const handler = translateWith(provider.url);
    const run = await runJob({ job: translate, handler, input: { text: 'hello' } });
    expect(run.state).toBe('needs_review');
    expect(provider.billed()).toBe(1);
    expect(provider.requests).toHaveLength(1);
  });

  it('a worker that dies right after the provider answered: the retry reuses the answer, billed once', async () => {
    await using provider = await startFakeProvider();
    const run = await runJob({
      job: translate,
      handler: translateWith(provider.url),
      input: { text: 'hello' },
      crashAt: { point: 'after-call-outcome' },
    });
    expect(run.state).toBe('succeeded');
    expect(run.output).toEqual({ text: 'hello' });
    expect(provider.billed()).toBe(1);
  });
});
