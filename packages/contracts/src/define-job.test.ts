import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_MAX_ATTEMPTS, defineJob, defineJobs, versionsOf } from './define-job.js';
import { createSubmitSchema, dueTime, MAX_DELAY_MS } from './submit-schema.js';

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
    expect(summarize.priority).toBe(0);
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

describe('defineJob priority', () => {
  const base = {
    kind: 'p.q',
    versions: { current: 'v1' },
    input: z.object({}),
    output: z.object({}),
  };
  it('keeps a default priority from -10 to 10', () => {
    expect(defineJob({ ...base, priority: 10 }).priority).toBe(10);
    expect(defineJob({ ...base, priority: -10 }).priority).toBe(-10);
  });
  it.each([11, -11, 0.5, Number.NaN])('refuses priority %s with INVALID_CONFIG', (priority) => {
    expect(() => defineJob({ ...base, priority })).toThrowError(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
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
    [
      'runAt without offset',
      { kind: 'demo.summarize', input: { text: 'x' }, runAt: '2030-01-01T00:00:00' },
    ],
    ['runAt not a date', { kind: 'demo.summarize', input: { text: 'x' }, runAt: 'tomorrow' }],
    ['negative delay', { kind: 'demo.summarize', input: { text: 'x' }, delayMs: -1 }],
    ['fractional delay', { kind: 'demo.summarize', input: { text: 'x' }, delayMs: 1.5 }],
    [
      'delay over a year',
      { kind: 'demo.summarize', input: { text: 'x' }, delayMs: MAX_DELAY_MS + 1 },
    ],
    [
      'runAt and delayMs together',
      { kind: 'demo.summarize', input: { text: 'x' }, runAt: '2030-01-01T00:00:00Z', delayMs: 5 },
    ],
  ])('rejects %s', (_name, value) => {
    expect(schema.safeParse(value).success).toBe(false);
  });
  it('takes a due time as runAt (with offset) or delayMs', () => {
    const at = { kind: 'demo.summarize', input: { text: 'x' }, runAt: '2030-01-01T09:00:00+09:00' };
    expect(schema.parse(at)).toEqual(at);
    const delay = { kind: 'demo.summarize', input: { text: 'x' }, delayMs: 0 };
    expect(schema.parse(delay)).toEqual(delay);
  });
  it('refuses an empty registry', () => {
    expect(() => createSubmitSchema({})).toThrowError(/no job kinds/);
  });
});

describe('dueTime', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  it('is undefined (run at once) without a due time or with one not in the future', () => {
    expect(dueTime({}, now)).toBeUndefined();
    expect(dueTime({ delayMs: 0 }, now)).toBeUndefined();
    expect(dueTime({ runAt: '2029-12-31T23:59:59Z' }, now)).toBeUndefined();
    expect(dueTime({ runAt: '2030-01-01T00:00:00Z' }, now)).toBeUndefined();
  });
  it('is the instant of runAt (any offset) or now + delayMs', () => {
    expect(dueTime({ runAt: '2030-01-01T09:00:01+09:00' }, now)).toBe(now + 1000);
    expect(dueTime({ delayMs: 2500 }, now)).toBe(now + 2500);
    expect(dueTime({ delayMs: MAX_DELAY_MS }, now)).toBe(now + MAX_DELAY_MS);
  });
  it('refuses a runAt more than a year ahead with BAD_REQUEST', () => {
    expect(() => dueTime({ runAt: '2031-01-02T00:00:00Z' }, now)).toThrowError(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });
});
