// Start limits at the gateway: a submit records the API key that made it (per-key
// limits count by it); a runtime that cannot enforce start limits refuses a kind that has them —
// declared or set by the config — writing nothing, and still takes other kinds; a queued job held
// by a limit shows why through `get` and `list`, and a job that is not queued shows no wait.
import { defineJob, EMBEDDED_CAPABILITIES, type JobWaiting } from '@sluice/contracts';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createEmbeddedDispatcher } from '../runtimes/embedded.js';
import {
  errorOf,
  startGateway,
  testJobs,
  type GatewayFixture,
  type TestJobs,
} from '../testing/fixture.js';

const codeOf = (e: { data: unknown }) => (e.data as { code?: string } | undefined)?.code;

describeEachDialect('start limits at the gateway', (ctx) => {
  let f: GatewayFixture;
  beforeAll(async () => {
    f = await startGateway(ctx());
  });
  afterAll(async () => {
    await f.close();
  });

  it('records the submitting API key on the job row', async () => {
    const job = await f
      .http(f.keyA)
      .jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'k' } });
    const row = await f.db.database.db
      .selectFrom('jobs')
      .select(['api_key_id'])
      .where('id', '=', job.id)
      .executeTakeFirstOrThrow();
    expect(row.api_key_id).toBe(f.keyIdA);
  });

  it('shows why a queued job waits through get and list; a job that is not queued shows none', async () => {
    const c = f.http(f.keyA);
    const job = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'w' } });
    expect((await c.jobs.get.query({ id: job.id })).waiting ?? null).toBeNull();
    const waiting: JobWaiting = {
      reason: 'tenant',
      name: 'demo.echo/acme',
      by: 'concurrency',
      since: new Date().toISOString(),
    };
    // What a limit hold stores (the worker's attempt write): the row stays queued.
    const setRow = (state: string) =>
      f.db.database.db
        .updateTable('jobs')
        .set({ waiting: JSON.stringify(waiting), state })
        .where('id', '=', job.id)
        .execute();
    await setRow('queued');
    expect((await c.jobs.get.query({ id: job.id })).waiting).toEqual(waiting);
    const listed = await c.jobs.list.query({ state: 'queued', limit: 100 });
    expect(listed.items.find((j) => j.id === job.id)?.waiting).toEqual(waiting);
    // and the gauge of held jobs counts it under its limit (scope and kind, no tenant id)
    expect(await f.metricsText()).toMatch(/sluice_jobs_waiting\{limit="tenant:demo.echo"\} 1\b/);
    await setRow('running');
    expect((await c.jobs.get.query({ id: job.id })).waiting).toBeNull();
  });

  /** A runtime lacking `flag`: the limited kind is refused, nothing is written, demo.echo is taken. */
  async function expectRefused(
    flag: 'limitsStarts' | 'limitsProviders',
    overrides: Partial<Parameters<typeof startGateway>[1]>,
    message: RegExp,
  ) {
    const runtime = {
      ...createEmbeddedDispatcher(ctx().database),
      capabilities: { ...EMBEDDED_CAPABILITIES, [flag]: false },
    };
    const g = await startGateway(ctx(), { runtime, ...overrides });
    try {
      const c = g.http(g.keyA);
      const before = await g.counts();
      const e = await errorOf(c.jobs.submit.mutate({ kind: 'demo.copy', input: { text: 'x' } }));
      expect(codeOf(e)).toBe('BAD_REQUEST');
      expect(e.message).toMatch(message);
      const after = await g.counts();
      expect([after.jobs, after.events]).toEqual([before.jobs, before.events]);
      const ok = await c.jobs.submit.mutate({ kind: 'demo.echo', input: { text: 'y' } });
      expect(ok.state).toBe('queued');
    } finally {
      await g.close();
    }
  }
  const withKind = (job: unknown) => ({
    jobs: { ...testJobs, 'demo.copy': job } as unknown as TestJobs,
  });
  const copy = { kind: 'demo.copy', versions: { current: 'v1' } } as const;
  const io = {
    input: z.object({ text: z.string().max(1000) }).strict(),
    output: z.object({ text: z.string() }),
  };

  it('a runtime without limitsStarts refuses a kind with start limits (declared or by config), writing nothing', async () => {
    const declared = defineJob({ ...copy, ...io, limits: { perTenant: { maxRunning: 2 } } });
    await expectRefused('limitsStarts', withKind(declared), /start limits/);
    await expectRefused(
      'limitsStarts',
      { kindLimits: { 'demo.copy': { startsPerSecond: 3 } } },
      /start limits/,
    );
  });

  it('a runtime without limitsProviders refuses a kind whose provider calls declare limits, writing nothing', async () => {
    const limited = defineJob({
      ...copy,
      ...io,
      providers: {
        speak: {
          provider: 'tts',
          modality: 'speech',
          call: 'sync',
          idempotencyKey: 'none',
          limits: { maxConcurrent: 2 },
        },
      },
    });
    await expectRefused('limitsProviders', withKind(limited), /provider limits/);
  });

  it('defineJob refuses malformed limits with INVALID_CONFIG', () => {
    const bad = () =>
      defineJob({
        kind: 'demo.bad',
        versions: { current: 'v1' },
        input: z.object({}),
        output: z.object({}),
        limits: { perTenant: { maxRunning: 0 } },
      });
    expect(bad).toThrow(/limits/);
  });
});
