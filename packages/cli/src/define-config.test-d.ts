// `defineConfig` checks the handler map against the job registry at compile time: a handler
// under a kind the registry lacks, under a version its kind does not declare, or written for
// another kind fails to compile. Checked by `tsc --noEmit` (typecheck) and `vitest --typecheck`.

import { defineJob, defineJobs } from '@sluice/contracts';
import { defineHandler } from '@sluice/worker';
import { expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { defineConfig, type HandlerMap } from './define-config.js';

const render = defineJob({
  kind: 'video.render',
  versions: { current: 'v1', next: 'v2' },
  input: z.object({ scene: z.string() }),
  output: z.object({ url: z.string() }),
});
const transcribe = defineJob({
  kind: 'audio.transcribe',
  versions: { current: 'v3' },
  input: z.object({ fileId: z.string() }),
  output: z.object({ text: z.string() }),
});
const jobs = defineJobs(render, transcribe);

const renderV1 = defineHandler(render, {
  prepare: (ctx) => [{ key: 'scene', input: ctx.input.scene }],
  execute: (unit) => `https://cdn.example/${unit.input}.mp4`,
  finalize: (results) => ({ url: results[0]?.result ?? '' }),
});
const transcribeV3 = defineHandler(transcribe, {
  prepare: (ctx) => [{ key: 'file', input: ctx.input.fileId }],
  execute: () => 'hello',
  finalize: (results) => ({ text: results.map((r) => r.result).join(' ') }),
});

test('a handler map that matches the registry compiles, inline or held in a variable', () => {
  defineConfig({ jobs, handlers: { 'video.render': { v1: renderV1, v2: renderV1 } } });
  const handlers = { 'audio.transcribe': { v3: transcribeV3 } };
  defineConfig({ jobs, handlers });
  defineConfig({ jobs });
  expectTypeOf<keyof NonNullable<HandlerMap<typeof jobs>['video.render']>>().toEqualTypeOf<
    'v1' | 'v2'
  >();
});

test('a wrong kind, a wrong version or a handler for another kind does not compile', () => {
  // @ts-expect-error kind "video.rendr" is not in the registry
  defineConfig({ jobs, handlers: { 'video.rendr': { v1: renderV1 } } });
  const wrongKind = { 'image.resize': { v1: renderV1 } };
  // @ts-expect-error the same, held in a variable (no excess-property check to rely on)
  defineConfig({ jobs, handlers: wrongKind });
  // @ts-expect-error video.render has versions v1 and v2, not v3
  defineConfig({ jobs, handlers: { 'video.render': { v3: renderV1 } } });
  const wrongVersion = { 'audio.transcribe': { v1: transcribeV3 } };
  // @ts-expect-error the same, held in a variable
  defineConfig({ jobs, handlers: wrongVersion });
  // @ts-expect-error a transcribe handler registered for video.render
  defineConfig({ jobs, handlers: { 'video.render': { v1: transcribeV3 } } });
});
