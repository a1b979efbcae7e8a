// Type tests: the registry alone types the client. Run by `vitest --typecheck`.
import { defineJob, defineJobs, type ChildView, type JobView } from '@sluice/contracts';
import { describe, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { createSluiceClient, type JobHandle, type JobWatchEvent } from './index.js';

const summarize = defineJob({
  kind: 'demo.summarize',
  versions: { current: 'v1' },
  input: z.object({
    text: z.string(),
    lang: z.enum(['en', 'de']).default('en'),
  }),
  output: z.object({ summary: z.string(), words: z.number() }),
  progress: z.object({ done: z.number(), total: z.number() }),
});
const ping = defineJob({
  kind: 'demo.ping',
  versions: { current: 'v1' },
  input: z.object({}),
  output: z.literal('pong'),
});
const review = defineJob({
  kind: 'demo.review',
  versions: { current: 'v1' },
  input: z.object({}),
  output: z.object({}),
  events: { approved: z.object({ by: z.string(), ok: z.boolean() }), note: z.string() },
});
export const jobs = defineJobs(summarize, ping, review);
type Jobs = typeof jobs;

const client = createSluiceClient<Jobs>({ url: 'http://localhost:3000', apiKey: 'k' });

describe('submit', () => {
  test('accepts the declared input of the kind', async () => {
    const handle = await client.submit('demo.summarize', { text: 'a. b.' });
    expectTypeOf(handle).toEqualTypeOf<JobHandle<typeof summarize>>();
    expectTypeOf(handle.kind).toEqualTypeOf<'demo.summarize'>();
    expectTypeOf(handle.id).toEqualTypeOf<string>();
    expectTypeOf(handle.isDuplicate).toEqualTypeOf<boolean>();
    await client.submit('demo.summarize', { text: 'x', lang: 'de' }, { idempotencyKey: 'k1' });
    await client.submit('demo.ping', {});
  });

  test('takes the flow options, typed, and reports what they did on the handle', async () => {
    const h = await client.submit(
      'demo.summarize',
      { text: 'x' },
      { debounce: { key: 'doc', delayMs: 500, mode: 'trailing' } },
    );
    expectTypeOf(h.debounced).toEqualTypeOf<boolean>();
    expectTypeOf(h.skipped).toEqualTypeOf<boolean>();
    expectTypeOf(h.batchIndex).toEqualTypeOf<number | undefined>();
    await client.submit('demo.ping', {}, { singleton: { key: 'k', mode: 'cancel-older' } });
    // @ts-expect-error an unknown debounce mode
    await client.submit('demo.ping', {}, { debounce: { delayMs: 5, mode: 'sometimes' } });
    // @ts-expect-error an unknown singleton mode
    await client.submit('demo.ping', {}, { singleton: { mode: 'never' } });
  });

  test('rejects wrong kinds and inputs at compile time', async () => {
    // @ts-expect-error unknown kind
    await client.submit('demo.nope', { text: 'x' });
    // @ts-expect-error wrong input for the kind (ping takes no text)
    await client.submit('demo.ping', { text: 'x' });
    // @ts-expect-error missing required field
    await client.submit('demo.summarize', {});
    // @ts-expect-error extra field
    await client.submit('demo.summarize', { text: 'x', extra: 1 });
    // @ts-expect-error wrong enum value
    await client.submit('demo.summarize', { text: 'x', lang: 'fr' });
    // @ts-expect-error wrong field type
    await client.submit('demo.summarize', { text: 42 });
    // @ts-expect-error unknown option
    await client.submit('demo.ping', {}, { idempotency: 'k' });
  });
});

describe('result', () => {
  test('resolves with exactly the declared output', async () => {
    const handle = await client.submit('demo.summarize', { text: 'x' });
    expectTypeOf(handle.result()).resolves.toEqualTypeOf<{ summary: string; words: number }>();
    const pong = await client.submit('demo.ping', {});
    expectTypeOf(pong.result()).resolves.toEqualTypeOf<'pong'>();
    expectTypeOf(handle.status()).resolves.toEqualTypeOf<JobView>();
  });

  test('a handle rebuilt from an id is typed only when the kind is given', () => {
    const typed = client.job('v1-aaaaaaaaaaaaaaaaaaaaaaaaaa', 'demo.summarize');
    expectTypeOf(typed.result()).resolves.toEqualTypeOf<{ summary: string; words: number }>();
    const untyped = client.job('v1-aaaaaaaaaaaaaaaaaaaaaaaaaa');
    expectTypeOf(untyped.result()).resolves.toEqualTypeOf<unknown>();
    expectTypeOf(untyped.kind).toEqualTypeOf<string | undefined>();
    // @ts-expect-error unknown kind
    client.job('v1-aaaaaaaaaaaaaaaaaaaaaaaaaa', 'demo.nope');
  });
});

describe('watch', () => {
  test('progress data has the declared progress type', async () => {
    const handle = await client.submit('demo.summarize', { text: 'x' });
    for await (const event of handle.watch()) {
      expectTypeOf(event).toEqualTypeOf<JobWatchEvent<typeof summarize>>();
      if (event.type === 'progress') {
        expectTypeOf(event.data).toEqualTypeOf<{ done: number; total: number }>();
        expectTypeOf(event.seq).toEqualTypeOf<number>();
      }
      if (event.type === 'state') expectTypeOf(event.to).toEqualTypeOf<JobView['state']>();
    }
    for await (const event of client.job('v1-aaaaaaaaaaaaaaaaaaaaaaaaaa').watch()) {
      if (event.type === 'progress') expectTypeOf(event.data).toEqualTypeOf<unknown>();
    }
  });

  test('the feed is typed by kind', async () => {
    for await (const item of client.watchAll({ kinds: ['demo.summarize'] })) {
      expectTypeOf(item.kind).toEqualTypeOf<'demo.summarize'>();
      if (item.event.type === 'progress') {
        expectTypeOf(item.event.data).toEqualTypeOf<{ done: number; total: number }>();
      }
    }
    for await (const item of client.watchAll()) {
      if (item.kind === 'demo.ping' && item.event.type === 'progress') {
        expectTypeOf(item.event.data).toEqualTypeOf<unknown>();
      }
    }
    // @ts-expect-error unknown kind in the filter
    client.watchAll({ kinds: ['demo.nope'] });
  });
});

test('lists filter by declared kinds only', async () => {
  await client.jobs.list({ kind: 'demo.ping', state: 'failed', limit: 10 });
  // @ts-expect-error unknown kind
  await client.jobs.list({ kind: 'demo.nope' });
  // @ts-expect-error unknown state
  await client.jobs.list({ state: 'exploded' });
});

test('requeue and approve give typed handles when the kind is given', async () => {
  const typed = await client.deadLetters.requeue('v1-aaaaaaaaaaaaaaaaaaaaaaaaaa', 'demo.ping');
  expectTypeOf(typed.result()).resolves.toEqualTypeOf<'pong'>();
  const untyped = await client.review.approve('v1-aaaaaaaaaaaaaaaaaaaaaaaaaa', 'ok');
  expectTypeOf(untyped.result()).resolves.toEqualTypeOf<unknown>();
});

test('review.list carries each job’s evidence: reason, unit, provider and the calls in doubt', async () => {
  const [item] = (await client.review.list()).items;
  if (!item) return;
  expectTypeOf(item.review.unitKey).toEqualTypeOf<string | null>();
  expectTypeOf(item.review.provider).toEqualTypeOf<string | null>();
  expectTypeOf(item.review.reason).toEqualTypeOf<string>();
  expectTypeOf(item.review.calls).toEqualTypeOf<
    { unitKey: string; callName: string; provider: string; outcome: string }[]
  >();
});

describe('signal', () => {
  test("names an event some kind declares, with that event's payload", async () => {
    await client.jobs.signal('v1-x', 'approved', { by: 'ann', ok: true });
    await client.jobs.signal('v1-x', 'note', 'looks good');
    // @ts-expect-error no kind declares this event
    await client.jobs.signal('v1-x', 'rejected', {});
    // @ts-expect-error wrong payload for the event
    await client.jobs.signal('v1-x', 'approved', { by: 'ann' });
    const handle = await client.submit('demo.review', {});
    const r = await handle.signal('approved', { by: 'bo', ok: false }, { signalId: 's1' });
    expectTypeOf(r.delivered).toEqualTypeOf<boolean>();
    // @ts-expect-error a typed handle takes only its own kind's events
    await handle.signal('note', 1);
    const other = await client.submit('demo.ping', {});
    // @ts-expect-error ping declares no events
    await other.signal('approved', { by: 'x', ok: true });
    expectTypeOf(await handle.children()).toEqualTypeOf<ChildView[]>();
  });
});
