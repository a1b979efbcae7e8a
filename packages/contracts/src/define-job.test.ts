import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_MAX_ATTEMPTS, defineJob, defineJobs, versionsOf } from './define-job.js';
import { createSubmitSchema } from './submit-schema.js';

const summarize = defineJob({
  kind: 'demo.summarize',
  versions: { current: 'v1' },
  input: z.object({ text: z.string().max(10_000) }),
  output: z.object({ summary: z.string(), words: z.number() }),
  progress: z.object({ done: z.number(), total: z.number() }),
});
const render = defineJob({
  kind: 'video.render',
  versions: { current: 'v1', next: 'v2', rolloutPercent: 10 },
  input: z.object({ scenes: z.array(z.string()).max(50), fps: z.number().int().default(24) }),
  output: z.object({ assetId: z.string() }),
  providers: {
    tts: { provider: 'acme', modality: 'speech', call: 'sync', idempotencyKey: 'none' },
  },
  maxAttempts: 3,
});

describe('defineJob', () => {
  it('keeps the definition, frozen, with defaults', () => {
    expect(summarize.kind).toBe('demo.summarize');
    expect(summarize.versions).toEqual({ current: 'v1', next: undefined, rolloutPercent: 0 });
    expect(summarize.maxAttempts).toBe(DEFAULT_MAX_ATTEMPTS);
    expect(summarize.providers).toEqual({});
    expect(Object.isFrozen(summarize)).toBe(true);
    expect(render.versions.rolloutPercent).toBe(10);
    expect(render.maxAttempts).toBe(3);
    expect(versionsOf(summarize)).toEqual(['v1']);
    expect(versionsOf(render)).toEqual(['v1', 'v2']);
  });
  it('progress defaults to unknown', () => {
    const j = defineJob({
      kind: 'a.b',
      versions: { current: 'v1' },
      input: z.object({}),
      output: z.null(),
    });
    expect(j.progress.safeParse({ anything: 1 }).success).toBe(true);
  });
  it.each([
    [{ kind: 'Demo.x' }, /kind must be a dotted lowercase name/],
    [{ kind: 'single' }, /kind must be a dotted lowercase name/],
    [{ kind: 'a..b' }, /kind must be a dotted lowercase name/],
    [{ kind: `a.${'b'.repeat(100)}` }, /kind must be/],
    [{ versions: { current: '1' } }, /versions.current "1" must look like v1/],
    [{ versions: { current: 'v1', next: 'two' } }, /versions.next "two"/],
    [{ versions: { current: 'v1', next: 'v1' } }, /must differ from current/],
    [{ versions: { current: 'v1', rolloutPercent: 5 } }, /rolloutPercent needs versions.next/],
    [
      { versions: { current: 'v1', next: 'v2', rolloutPercent: 101 } },
      /rolloutPercent must be 0–100/,
    ],
    [{ maxAttempts: 0 }, /maxAttempts must be an integer ≥ 1/],
    [{ maxAttempts: 1.5 }, /maxAttempts/],
  ])('rejects %o', (patch, message) => {
    const opts = {
      kind: 'a.b',
      versions: { current: 'v1' },
      input: z.object({}),
      output: z.null(),
      ...patch,
    };
    expect(() => defineJob(opts as Parameters<typeof defineJob>[0])).toThrowError(message);
    expect(() => defineJob(opts as Parameters<typeof defineJob>[0])).toThrowError(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
  });
});

describe('defineJobs', () => {
  it('keys the registry by kind and refuses duplicates', () => {
    const jobs = defineJobs(summarize, render);
    expect(Object.keys(jobs)).toEqual(['demo.summarize', 'video.render']);
    expect(jobs['video.render']).toBe(render);
    expect(() => defineJobs(summarize, summarize)).toThrowError(/defined twice/);
  });
});

describe('createSubmitSchema', () => {
  const schema = createSubmitSchema(defineJobs(summarize, render));
  it('validates the input with that kind schema', () => {
    expect(schema.parse({ kind: 'demo.summarize', input: { text: 'hi' } })).toEqual({
      kind: 'demo.summarize',
      input: { text: 'hi' },
    });
    expect(
      schema.parse({ kind: 'video.render', input: { scenes: ['a'] }, idempotencyKey: 'k1' }),
    ).toEqual({ kind: 'video.render', input: { scenes: ['a'], fps: 24 }, idempotencyKey: 'k1' });
  });
  it.each([
    ['unknown kind', { kind: 'nope.x', input: {} }],
    ['wrong input for the kind', { kind: 'demo.summarize', input: { scenes: [] } }],
    ['wrong field type', { kind: 'demo.summarize', input: { text: 1 } }],
    ['extra top-level field', { kind: 'demo.summarize', input: { text: 'x' }, tenantId: 'other' }],
    ['empty idempotency key', { kind: 'demo.summarize', input: { text: 'x' }, idempotencyKey: '' }],
    [
      'too long idempotency key',
      { kind: 'demo.summarize', input: { text: 'x' }, idempotencyKey: 'k'.repeat(201) },
    ],
    ['bad file id', { kind: 'demo.summarize', input: { text: 'x' }, fileIds: ['../etc/passwd'] }],
    [
      'too many file ids',
      {
        kind: 'demo.summarize',
        input: { text: 'x' },
        fileIds: Array(101).fill(`f_${'a'.repeat(26)}`),
      },
    ],
    ['over the string limit', { kind: 'demo.summarize', input: { text: 'x'.repeat(10_001) } }],
  ])('rejects %s', (_name, value) => {
    expect(schema.safeParse(value).success).toBe(false);
  });
  it('refuses an empty registry', () => {
    expect(() => createSubmitSchema({})).toThrowError(/no job kinds/);
  });
});
