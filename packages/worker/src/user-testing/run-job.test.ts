// The public harness itself: each fault knob and crash point leads where the retry-safety
// contracts say, measured on the fake provider's own billing record and the stored ledger.

import { defineJob } from '@sluice/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../attempt/define-handler.js';
import { runJob, startFakeProvider, type FakeProvider } from './index.js';

const paid = defineJob({
  kind: 'test.paid',
  versions: { current: 'v1' },
  input: z.object({ words: z.array(z.string()).min(1), call: z.enum(['ambiguous', 'safe']) }),
  output: z.object({ results: z.array(z.string()) }),
  providers: {
    ambiguous: { provider: 'fake', modality: 'text', call: 'sync', idempotencyKey: 'none' },
    safe: {
      provider: 'fake',
      modality: 'text',
      call: 'sync',
      idempotencyKey: 'verified',
      evidence: 'the harness fake provider deduplicates by Idempotency-Key',
    },
  },
  maxAttempts: 3,
});

let provider: FakeProvider;
const handler = () =>
  defineHandler(paid, {
    prepare: (ctx) => ctx.input.words.map((w, i) => ({ key: `w${i}`, input: w })),
    async execute(unit, ctx) {
      const answer = await ctx.providers.call(ctx.input.call, {
        method: 'POST',
        url: `${provider.url}/v1/translate`,
        body: { text: unit.input },
      });
      const { echo } = answer.body as { echo: { text: string } };
      await ctx.assets.write({
        name: 'word.txt',
        body: echo.text.toUpperCase(),
        contentType: 'text/plain',
      });
      return echo.text.toUpperCase();
    },
    apply: (results) => results.map((r) => r.result),
    finalize: (results) => ({ results: [...results] }),
  });

beforeEach(async () => {
  provider = await startFakeProvider({ honoursIdempotencyKey: true });
});
afterEach(async () => {
  await provider.close();
});

const run = (input: z.input<typeof paid.input>, extra = {}) =>
  runJob({ job: paid, handler: handler(), input, ...extra });

describe('runJob', () => {
  it('runs a job through the real worker: output, events, one ledger row and one bill per unit, assets', async () => {
    const r = await run({ words: ['a', 'b'], call: 'ambiguous' });
    expect(r.state).toBe('succeeded');
    expect(r.output).toEqual({ results: ['A', 'B'] });
    expect(r.events.at(-1)).toMatchObject({ type: 'state', to: 'succeeded' });
    expect(r.ledger.map((l) => l.outcome)).toEqual(['succeeded', 'succeeded']);
    expect(provider.billed()).toBe(2);
    expect(r.assets.map((a) => [a.unitKey, Buffer.from(a.bytes).toString()]).sort()).toEqual([
      ['unit:w0', 'A'],
      ['unit:w1', 'B'],
    ]);
  });

  it('refuses to pass a crash test whose crash point was never reached', async () => {
    await expect(
      run({ words: ['a'], call: 'safe' }, { crashAt: { point: 'after-external-id' } }),
    ).rejects.toThrow(
      /crash point after-external-id \(pass 1\) was never reached; the job ended succeeded/,
    );
  });

  it('refuses an input its schema rejects, before anything runs', async () => {
    await expect(run({ words: [], call: 'safe' })).rejects.toThrow(
      /input does not match test.paid/,
    );
    expect(provider.requests).toHaveLength(0);
  });

  it('commit-then-drop on an ambiguous call: parked for review, billed once, never resent', async () => {
    provider.inject({ fault: 'commit-then-drop' });
    const r = await run({ words: ['a'], call: 'ambiguous' });
    expect(r.state).toBe('needs_review');
    expect(provider.requests).toHaveLength(1);
    expect(provider.billed()).toBe(1);
  });

  it('commit-then-drop on a verified-idempotent call: retried with the same key, billed once', async () => {
    provider.inject({ fault: 'commit-then-drop' });
    const r = await run({ words: ['a'], call: 'safe' });
    expect(r.state).toBe('succeeded');
    expect(provider.requests.length).toBeGreaterThan(1);
    expect(new Set(provider.requests.map((q) => q.headers['idempotency-key'])).size).toBe(1);
    expect(provider.billed()).toBe(1);
  });

  it('fail-before-processing on a verified-idempotent call: retried, billed once', async () => {
    provider.inject({ fault: 'fail-before-processing', times: 2 });
    const r = await run({ words: ['a'], call: 'safe' });
    expect(r.state).toBe('succeeded');
    expect(provider.requests).toHaveLength(3);
    expect(provider.billed()).toBe(1);
  });

  it('a crash after the answer is in the ledger: the survivor reuses it, nothing is billed twice', async () => {
    const r = await run(
      { words: ['a'], call: 'ambiguous' },
      { crashAt: { point: 'after-call-outcome' } },
    );
    expect(r.crashedAt).toBe('after-call-outcome');
    expect(r.state).toBe('succeeded');
    expect(r.output).toEqual({ results: ['A'] });
    expect(provider.billed()).toBe(1);
    expect(r.ledger).toHaveLength(1);
    expect(r.row.attempts).toBe(2);
  });

  it("a crash while another unit's call is in flight: that call is in doubt, so the job waits for a person", async () => {
    // Two units run side by side: when the first answer is stored the second request is out.
    provider.inject({ fault: 'slow', delayMs: 150, path: '/v1/translate' });
    const r = await run(
      { words: ['a', 'b'], call: 'ambiguous' },
      { crashAt: { point: 'after-call-outcome' } },
    );
    expect(r.crashedAt).toBe('after-call-outcome');
    expect(r.state).toBe('needs_review');
    expect(provider.billed()).toBe(2);
    expect(r.ledger.map((l) => l.outcome).sort()).toEqual(['pending', 'succeeded']);
  });

  it('a crash between the ledger intent and the request: nothing was sent, and the survivor cannot know that of an ambiguous call', async () => {
    const r = await run(
      { words: ['a'], call: 'ambiguous' },
      { crashAt: { point: 'after-call-intent' } },
    );
    expect(r.crashedAt).toBe('after-call-intent');
    expect(provider.requests).toHaveLength(0);
    expect(r.state).toBe('needs_review');
  });

  it('a crash after the asset bytes are staged: one asset published, by the survivor', async () => {
    const r = await run(
      { words: ['a'], call: 'safe' },
      { crashAt: { point: 'after-blob-write-before-publish' } },
    );
    expect(r.crashedAt).toBe('after-blob-write-before-publish');
    expect(r.state).toBe('succeeded');
    expect(r.assets).toHaveLength(1);
    expect(r.assets[0]?.attemptId).toBe(r.row.attemptId);
    expect(provider.billed()).toBe(1);
  });
});

describe('runJob with a batch kind', () => {
  const embed = defineJob({
    kind: 'test.embed',
    versions: { current: 'v1' },
    input: z.object({ text: z.string(), drop: z.boolean().optional() }),
    output: z.object({ length: z.number().int() }),
    batch: { maxSize: 8, maxWaitMs: 50 },
    maxAttempts: 1,
  });
  const embedHandler = defineHandler(embed, {
    prepare: (ctx) => ctx.input.map((input, i) => ({ key: `i${i}`, input })),
    execute: (unit) => unit.input.text.length,
    finalize: (results, ctx) => {
      const out = results.map((r) => ({ length: r.result }));
      return ctx.input.some((i) => i.drop) ? out.slice(1) : out;
    },
  });

  it('runs the batch as one run: one output per input, in order', async () => {
    const r = await runJob({
      job: embed,
      handler: embedHandler,
      input: [{ text: 'a' }, { text: 'abc' }],
    });
    expect(r.state).toBe('succeeded');
    expect(r.output).toEqual([{ length: 1 }, { length: 3 }]);
  });

  it('fails a run that returns fewer outputs than inputs (no share goes astray)', async () => {
    const r = await runJob({
      job: embed,
      handler: embedHandler,
      input: [{ text: 'a', drop: true }, { text: 'abc' }],
    });
    expect(r.state).toBe('failed');
    expect(r.row.error?.message).toMatch(/one output per input: 2 inputs, got 1/);
  });
});
