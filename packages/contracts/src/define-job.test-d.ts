import { expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import {
  defineJob,
  defineJobs,
  type inferJobInput,
  type inferJobKind,
  type inferJobOutput,
  type inferJobProgress,
  type inferRunInput,
  type inferRunOutput,
} from './define-job.js';
import type { SubmitInput } from './submit-schema.js';

const summarize = defineJob({
  kind: 'demo.summarize',
  versions: { current: 'v1' },
  input: z.object({ text: z.string(), lang: z.string().default('en') }),
  output: z.object({ summary: z.string(), words: z.number() }),
  progress: z.object({ done: z.number() }),
});
const ping = defineJob({
  kind: 'demo.ping',
  versions: { current: 'v1' },
  input: z.object({}),
  output: z.literal('pong'),
});
const jobs = defineJobs(summarize, ping);

test('input, output and progress types come from the schemas', () => {
  expectTypeOf<inferJobInput<typeof summarize>>().toEqualTypeOf<{
    text: string;
    lang?: string | undefined;
  }>();
  expectTypeOf<inferJobOutput<typeof summarize>>().toEqualTypeOf<{
    summary: string;
    words: number;
  }>();
  expectTypeOf<inferJobProgress<typeof summarize>>().toEqualTypeOf<{ done: number }>();
  expectTypeOf<inferJobProgress<typeof ping>>().toEqualTypeOf<unknown>();
  expectTypeOf<inferJobOutput<typeof ping>>().toEqualTypeOf<'pong'>();
});

test('the registry is keyed by kind', () => {
  expectTypeOf<inferJobKind<typeof jobs>>().toEqualTypeOf<'demo.summarize' | 'demo.ping'>();
  expectTypeOf(jobs['demo.ping']).toEqualTypeOf<typeof ping>();
});

test('submit input is a discriminated union over the registry', () => {
  const ok: SubmitInput<typeof jobs> = { kind: 'demo.summarize', input: { text: 'x' } };
  expectTypeOf(ok).toMatchTypeOf<SubmitInput<typeof jobs>>();
  // @ts-expect-error wrong input for the kind
  const wrong: SubmitInput<typeof jobs> = { kind: 'demo.ping', input: { text: 'x' } };
  // @ts-expect-error unknown kind
  const unknownKind: SubmitInput<typeof jobs> = { kind: 'demo.nope', input: {} };
  void wrong;
  void unknownKind;
});

test('a batch kind runs on arrays; the others on one input', () => {
  const embed = defineJob({
    kind: 'demo.embed',
    versions: { current: 'v1' },
    input: z.object({ text: z.string() }),
    output: z.object({ n: z.number() }),
    batch: { maxSize: 10, maxWaitMs: 100 },
  });
  expectTypeOf(embed.kind).toEqualTypeOf<'demo.embed'>();
  expectTypeOf<inferRunInput<typeof embed>>().toEqualTypeOf<{ text: string }[]>();
  expectTypeOf<inferRunOutput<typeof embed>>().toEqualTypeOf<{ n: number }[]>();
  // A submitter still sends one input and gets one output back (its share).
  expectTypeOf<inferJobInput<typeof embed>>().toEqualTypeOf<{ text: string }>();
  expectTypeOf<inferJobOutput<typeof embed>>().toEqualTypeOf<{ n: number }>();
  expectTypeOf<inferRunInput<typeof summarize>>().toEqualTypeOf<{ text: string; lang: string }>();
  expectTypeOf<inferRunOutput<typeof ping>>().toEqualTypeOf<'pong'>();
});
