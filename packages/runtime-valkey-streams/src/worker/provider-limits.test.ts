// Shared provider limits on Valkey Streams workers, on SQLite and PostgreSQL: three workers on
// their own database handles call one provider through the guard, and the provider (a real HTTP
// server) never sees more than `maxConcurrent` requests in flight. The limit is per provider,
// not per transport: Streams workers share the same database counters (the other cases are the
// worker's own).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineJob, formatJobId, isTerminalState } from '@sluice/contracts';
import { acceptJobs, getJobsByIds, listEvents, type SluiceDatabase } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '@sluice/worker';
import { createStreamsFixture, type StreamsFixture } from '../testing/streams-fixture.js';
import type { CreateWorkerOptions, Worker } from '@sluice/worker';
import { startLimitWorkers } from '@sluice/worker/conformance';
import { createStreamsRuntime } from './create-streams-runtime.js';

const limitedJob = defineJob({
  kind: 'lim.call',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ ok: z.boolean() }),
  providers: {
    slow: {
      provider: 'slowco',
      modality: 'text',
      call: 'sync',
      idempotencyKey: 'verified',
      evidence: 'the test provider answers every request alike and bills nothing',
      limits: { maxConcurrent: 2 },
    },
  },
  maxAttempts: 3,
});

/** The provider: counts requests in flight and records each arrival (its own clock). */
function startProvider() {
  const state = { inFlight: 0, most: 0, arrivals: [] as number[] };
  const server: Server = createServer((req, res) => {
    state.inFlight++;
    state.most = Math.max(state.most, state.inFlight);
    state.arrivals.push(performance.now());
    req.resume();
    setTimeout(() => {
      state.inFlight--;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    }, 25);
  });
  return new Promise<{ url: string; state: typeof state; close(): Promise<void> }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        state,
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    ),
  );
}

async function submit(
  database: SluiceDatabase,
  n: number,
  kind: string = limitedJob.kind,
  maxAttempts = 3,
): Promise<string[]> {
  const ids = Array.from({ length: n }, () => formatJobId('v1'));
  await acceptJobs(
    database,
    ids.map((id, i) => ({
      id,
      tenantId: 't1',
      kind,
      version: 'v1',
      input: { n: i },
      inputHash: `h${i}`,
      maxAttempts,
      outcome: { to: 'queued' as const },
    })),
  );
  return ids;
}

describeEachDialect('provider limits shared by every worker', (ctx) => {
  let provider: Awaited<ReturnType<typeof startProvider>>;
  let fx: StreamsFixture;
  beforeAll(async () => {
    provider = await startProvider();
    fx = await createStreamsFixture();
  });
  afterAll(async () => {
    await provider.close();
    await fx?.dispose();
  });

  async function workers(n: number, opts: Partial<CreateWorkerOptions> = {}): Promise<Worker[]> {
    const handler = defineHandler(limitedJob, {
      prepare: () => [{ key: 'u', input: 0 }],
      execute: async (_unit, c) => {
        await c.providers.call('slow', { method: 'POST', url: `${provider.url}/call` });
        return 1;
      },
      finalize: () => ({ ok: true }),
    });
    const test = ctx();
    return startLimitWorkers({
      count: n,
      job: limitedJob,
      handler,
      runtime: () => (c) =>
        createStreamsRuntime({
          ...c,
          redisUrl: fx.server.url,
          blockMs: 100,
          claimEveryMs: 100,
          heartbeatEveryMs: 100,
        }),
      database: test.database,
      open: test.open,
      concurrency: 4,
      overrides: opts,
    });
  }

  async function settle(database: SluiceDatabase, ids: readonly string[]) {
    await waitFor(
      async () =>
        [...(await getJobsByIds(database.db, ids)).values()].every((r) => isTerminalState(r.state)),
      { timeoutMs: 60_000, message: 'jobs terminal' },
    );
    return [...(await getJobsByIds(database.db, ids)).values()].map((r) => r.state);
  }

  for (const runtime of ['streams'] as const) {
    it(`never more than maxConcurrent calls in flight at the provider, across three workers [${runtime}]`, async () => {
      const { database } = ctx();
      provider.state.most = 0;
      const ws = await workers(3, {});
      try {
        const ids = await submit(database, 24);
        await fx.dispatch(
          ids.map((jobId) => ({ jobId, kind: limitedJob.kind, version: 'v1', tenantId: 't1' })),
        );
        expect(new Set(await settle(database, ids))).toEqual(new Set(['succeeded']));
        expect(provider.state.most).toBeLessThanOrEqual(2);
        // the limit was reached (12 slots offered), so the bound above was tested
        expect(provider.state.most).toBe(2);
        // a watcher reads the wait: some job's events name the limit it waited for
        const events = (await Promise.all(ids.map((id) => listEvents(database.db, id)))).flat();
        expect(events.some((e) => e.type === 'waiting' && e.by === 'provider:slowco')).toBe(true);
        const text = (await Promise.all(ws.map((w) => w.scrapeMetrics()))).join('\n');
        expect(text).toMatch(/sluice_limit_waits_total\{limit="provider:slowco"\} [1-9]/);
      } finally {
        await Promise.all(ws.map((w) => w.stop({ deadlineMs: 2_000 })));
      }
    });
  }
});
