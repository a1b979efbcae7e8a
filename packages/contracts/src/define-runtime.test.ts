// defineRuntime: a runtime's options are checked where they are given, the environment writes over
// them, and a runtime that lacks something refuses to build a half instead of failing later.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRuntime } from './define-runtime.js';
import { EMBEDDED_CAPABILITIES } from './runtime-capabilities.js';

const demo = defineRuntime({
  name: 'demo',
  options: z
    .object({ url: z.string().min(1).optional(), depth: z.number().int().optional() })
    .strict(),
  env: { url: { name: 'DEMO_URL', flag: '--demo-url <url>', description: 'demo' } },
  capabilities: (o) => ({ ...EMBEDDED_CAPABILITIES, fairAcrossTenants: o.depth !== undefined }),
  check: (o) => (o.url ? undefined : 'needs DEMO_URL'),
  gateway: (o, resources: { database: string }) => ({ url: o.url, database: resources.database }),
  worker: () => ({ kind: 'pull', consumer: () => () => ({}) as never }),
});

describe('defineRuntime', () => {
  it('refuses bad options at once with INVALID_CONFIG naming the runtime and the field', () => {
    expect(() => demo({ depth: 1.5 })).toThrowError(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        details: { runtime: 'demo', field: 'depth', rule: expect.stringMatching(/int/) },
      }),
    );
    expect(() => demo({ nope: 1 } as never)).toThrowError(/the demo runtime's options/);
  });

  it('capabilities follow the options, stated once', () => {
    expect(demo().capabilities.fairAcrossTenants).toBe(false);
    expect(demo({ depth: 2 }).capabilities.fairAcrossTenants).toBe(true);
  });

  it('the environment wins over an option, and an empty variable changes nothing', () => {
    const rt = demo({ url: 'file', depth: 2 });
    expect(rt.withEnv({ DEMO_URL: 'env' }).options).toEqual({ url: 'env', depth: 2 });
    expect(rt.withEnv({ DEMO_URL: '' }).options).toEqual({ url: 'file', depth: 2 });
    expect(rt.env).toEqual({ url: expect.objectContaining({ name: 'DEMO_URL' }) });
  });

  it('a runtime that lacks something says so, and builds neither half', async () => {
    const rt = demo();
    expect(rt.check()).toBe('needs DEMO_URL');
    await expect(rt.gateway({ database: 'db' })).rejects.toThrowError(
      /the demo runtime needs DEMO_URL/,
    );
    const half = rt.worker();
    expect(half.kind).toBe('pull');
    if (half.kind === 'pull')
      await expect(half.consumer({ database: 'db' })).rejects.toThrowError(/needs DEMO_URL/);
    expect(await demo({ url: 'u' }).gateway({ database: 'db' })).toEqual({
      url: 'u',
      database: 'db',
    });
  });

  it('a half that loads its code on demand runs nothing until it is started', async () => {
    const started: string[] = [];
    const lazy = defineRuntime({
      name: 'lazy',
      options: z.object({}).strict(),
      capabilities: () => EMBEDDED_CAPABILITIES,
      gateway: async (_o, resources: { database: string }) => {
        started.push('gateway');
        return { database: resources.database };
      },
      worker: () => ({
        kind: 'pull',
        consumer: async () => {
          started.push('worker');
          return () => ({}) as never;
        },
      }),
    });
    const rt = lazy();
    const half = rt.worker();
    expect(half.kind).toBe('pull');
    expect(started).toEqual([]);
    expect(await rt.gateway({ database: 'db' })).toEqual({ database: 'db' });
    if (half.kind === 'pull')
      expect(typeof (await half.consumer({ database: 'db' }))).toBe('function');
    expect(started).toEqual(['gateway', 'worker']);
  });
});
