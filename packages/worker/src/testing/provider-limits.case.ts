// Shared provider limits across workers, on SQLite and PostgreSQL, written once and run by every
// runtime (`describeProviderLimits(name, makeRig)`): workers on their own database handles call
// one provider through the guard. The provider (a real HTTP server here) counts what arrives:
// never more than `maxConcurrent` requests in flight, and never more than `burst + callsPerSecond
// × window` requests in any window of its own arrival times. Every job still succeeds (a call over
// a limit waits, it does not fail), the wait is a `waiting` event a watcher reads, and the
// worker's metrics count it. The limit is per provider, not per transport: every runtime's
// workers share the same database counters.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineJob, formatJobId } from '@sluice/contracts';
import { acceptJobs, getJobsByIds, listEvents, type SluiceDatabase } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../attempt/define-handler.js';
import type { CreateWorkerOptions, Worker } from '../create-worker.js';
import { settleJobs, startLimitWorkers, type LimitRig } from './limit-workers.js';

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
  rig: LimitRig,
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
  await rig.dispatch?.(ids.map((jobId) => ({ jobId, kind, version: 'v1', tenantId: 't1' })));
  return ids;
}

export function describeProviderLimits(runtime: string, makeRig: () => Promise<LimitRig>): void {
  describeEachDialect('provider limits shared by every worker', (ctx) => {
    let provider: Awaited<ReturnType<typeof startProvider>>;
    let rig: LimitRig | undefined;
    beforeAll(async () => {
      provider = await startProvider();
      rig = await makeRig();
    });
    afterAll(async () => {
      await provider.close();
      await rig?.dispose();
    });
    const r = () => {
      if (!rig) throw new Error('limit rig not ready');
      return rig;
    };

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
      const ws = await startLimitWorkers({
        count: n,
        job: limitedJob,
        handler,
        runtime: r().runtime,
        database: test.database,
        open: test.open,
        concurrency: 4,
        overrides: opts,
      });
      const stopReconciler = r().reconcile?.(test.database);
      if (stopReconciler) onTestFinished(stopReconciler);
      return ws;
    }

    const settle = async (database: SluiceDatabase, ids: readonly string[]) =>
      (await settleJobs(database, ids)).map((r) => r.state);

    it(`never more than maxConcurrent calls in flight at the provider, across three workers [${runtime}]`, async () => {
      const { database } = ctx();
      provider.state.most = 0;
      const ws = await workers(3, {});
      try {
        const ids = await submit(r(), database, 24);
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

    it(`calls per second from config: no window of the provider sees more than burst + rate [${runtime}]`, async () => {
      const { database } = ctx();
      provider.state.arrivals = [];
      // config overrides the declaration: no concurrency cap, 5 calls per second (burst 5)
      const ws = await workers(3, { limits: { providers: { slowco: { callsPerSecond: 5 } } } });
      try {
        const ids = await submit(r(), database, 20);
        expect(new Set(await settle(database, ids))).toEqual(new Set(['succeeded']));
        const at = [...provider.state.arrivals].sort((a, b) => a - b);
        expect(at).toHaveLength(20);
        // Counted per window, not timed: 1 s windows starting at each arrival, slack 3 for the
        // gap between a token taken at the worker and its request arriving here (a loaded machine
        // can hold a request back and bunch it with later ones).
        const worst = Math.max(...at.map((t) => at.filter((u) => u >= t && u < t + 1000).length));
        expect(worst).toBeLessThanOrEqual(5 + 5 + 3);
        // and the limit did bite: 20 calls could not all arrive within the first second
        expect(at.filter((u) => u < (at[0] as number) + 1000).length).toBeLessThan(20);
      } finally {
        await Promise.all(ws.map((w) => w.stop({ deadlineMs: 2_000 })));
      }
    });

    it(`a job that waited its bound for a provider is given back with its attempt refunded [${runtime}]`, async () => {
      const { database } = ctx();
      provider.state.most = 0;
      // One attempt each, one call at a time, and no patience: most attempts give their job back
      // at least once. A give-back that spent the attempt would dead-letter the job.
      const ws = await workers(2, {
        limits: { providers: { slowco: { maxConcurrent: 1, maxWaitMs: 0 } } },
      });
      try {
        const ids = await submit(r(), database, 8, limitedJob.kind, 1);
        const rows = [...(await getJobsByIds(database.db, ids)).values()];
        expect(rows.every((r) => r.maxAttempts === 1)).toBe(true);
        expect(new Set(await settle(database, ids))).toEqual(new Set(['succeeded']));
        const done = [...(await getJobsByIds(database.db, ids)).values()];
        expect(done.every((r) => r.attempts === 1 && r.waiting === null)).toBe(true);
        const text = (await Promise.all(ws.map((w) => w.scrapeMetrics()))).join('\n');
        expect(text).toMatch(/sluice_limit_requeues_total\{limit="provider:slowco"\} [1-9]/);
      } finally {
        await Promise.all(ws.map((w) => w.stop({ deadlineMs: 2_000 })));
      }
    });
  });
}
