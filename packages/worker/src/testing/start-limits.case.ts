// Start limits per tenant, API key and kind, on SQLite and PostgreSQL, written once and run by
// every runtime (`describeStartLimits(name, makeRig)`): two workers on their own database handles
// run one kind whose starts are capped. The handler counts what runs at once (one process, so one
// count) and when each job starts. A job over a limit waits — it is never failed, and it never
// spends an attempt (maxAttempts 1 below: one spent attempt would dead-letter it). Where the
// transport is not the job database, the rig plays the gateway's dispatch and its reconciler
// (due outbox rows back to the transport), which is what brings a held job back there.
import { defineJob, formatJobId, type JobWaiting } from '@sluice/contracts';
import { acceptJobs, getJobsByIds, type SluiceDatabase } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { defineHandler } from '../attempt/define-handler.js';
import type { CreateWorkerOptions } from '../create-worker.js';
import { settleJobs, startLimitWorkers, type LimitRig } from './limit-workers.js';
import type { JobLimits } from '@sluice/contracts';

const RUN_MS = 150;

function limitedKind(limits: JobLimits) {
  return defineJob({
    kind: 'lim.start',
    versions: { current: 'v1' },
    input: z.object({ n: z.number().int() }),
    output: z.object({ ok: z.boolean() }),
    // One attempt: a hold that spent it would dead-letter the job.
    maxAttempts: 1,
    limits,
  });
}

/** What ran: per group (tenant or key), the most running at once; every start's time. */
function recorder() {
  const state = {
    running: new Map<string, number>(),
    most: new Map<string, number>(),
    mostTotal: 0,
    total: 0,
    starts: [] as number[],
    /** A queued job's `waiting` seen while another job of its group ran. */
    waits: [] as JobWaiting[],
  };
  return {
    state,
    enter(group: string) {
      const n = (state.running.get(group) ?? 0) + 1;
      state.running.set(group, n);
      state.most.set(group, Math.max(state.most.get(group) ?? 0, n));
      state.total++;
      state.mostTotal = Math.max(state.mostTotal, state.total);
      state.starts.push(performance.now());
    },
    leave(group: string) {
      state.running.set(group, (state.running.get(group) ?? 1) - 1);
      state.total--;
    },
  };
}

export function describeStartLimits(runtime: string, makeRig: () => Promise<LimitRig>): void {
  describeEachDialect('start limits per tenant, key and kind', (ctx) => {
    let rig: LimitRig | undefined;
    beforeAll(async () => {
      rig = await makeRig();
    });
    afterAll(async () => {
      await rig?.dispose();
    });
    const r = () => {
      if (!rig) throw new Error('limit rig not ready');
      return rig;
    };

    async function start(
      job: ReturnType<typeof limitedKind>,
      rec: ReturnType<typeof recorder>,
      groupOf: (tenantId: string, n: number) => string,
      opts: Partial<CreateWorkerOptions> = {},
    ) {
      const test = ctx();
      const handler = defineHandler(job, {
        prepare: () => [{ key: 'u', input: 0 }],
        execute: async (_u, c) => {
          const group = groupOf(c.tenantId, c.input.n);
          rec.enter(group);
          await new Promise((r) => setTimeout(r, RUN_MS));
          rec.leave(group);
          return 1;
        },
        finalize: () => ({ ok: true }),
      });
      const out = await startLimitWorkers({
        count: 2,
        job,
        handler,
        runtime: r().runtime,
        database: test.database,
        open: test.open,
        concurrency: 8,
        overrides: { limitHoldMs: 50, ...opts },
      });
      const stopReconciler = r().reconcile?.(test.database);
      return {
        async stop() {
          await stopReconciler?.();
          await Promise.all(out.map((w) => w.stop({ deadlineMs: 2_000 })));
        },
        workers: out,
      };
    }

    async function submit(
      database: SluiceDatabase,
      jobs: readonly { tenantId: string; apiKeyId?: string }[],
      kind = 'lim.start',
    ): Promise<string[]> {
      const rows = jobs.map((j, i) => ({
        id: formatJobId('v1'),
        tenantId: j.tenantId,
        apiKeyId: j.apiKeyId ?? null,
        kind,
        version: 'v1',
        input: { n: i },
        inputHash: `h${i}`,
        maxAttempts: 1,
        outcome: { to: 'queued' as const },
      }));
      await acceptJobs(database, rows);
      await r().dispatch?.(
        rows.map((row) => ({ jobId: row.id, kind, version: 'v1', tenantId: row.tenantId })),
      );
      return rows.map((r) => r.id);
    }

    const settle = async (database: SluiceDatabase, ids: readonly string[]) =>
      settleJobs(database, ids);

    it(`maxRunning per tenant: never more than 2 of a tenant's jobs run at once, another tenant runs alongside, no attempt spent [${runtime}]`, async () => {
      const { database } = ctx();
      const rec = recorder();
      const job = limitedKind({ perTenant: { maxRunning: 2 } });
      const run = await start(job, rec, (tenantId) => tenantId);
      try {
        const a = await submit(database, Array(10).fill({ tenantId: 'ta' }));
        // The waiting reason is visible on a held job while tenant A's backlog runs.
        const seen = waitFor(
          async () => {
            const rows = await getJobsByIds(database.db, a);
            const w = [...rows.values()].find((r) => r.state === 'queued' && r.waiting)?.waiting;
            if (w) rec.state.waits.push(w);
            return w !== undefined;
          },
          { timeoutMs: 10_000, intervalMs: 5, message: 'a held job shows why it waits' },
        );
        const b = await submit(database, Array(2).fill({ tenantId: 'tb' }));
        await seen;
        const rows = await settle(database, [...a, ...b]);
        expect(new Set(rows.map((r) => r.state))).toEqual(new Set(['succeeded']));
        // the limit held a tenant's jobs back, and each kept its one attempt
        expect(rows.every((r) => r.attempts === 1)).toBe(true);
        expect(rec.state.most.get('ta')).toBe(2);
        // tenant B was not queued behind A's limit: its jobs ran while A's did
        expect(rec.state.mostTotal).toBeGreaterThan(2);
        expect(rec.state.waits[0]).toMatchObject({
          reason: 'tenant',
          name: 'lim.start/ta',
          by: 'concurrency',
        });
        // cleared once the job ran
        expect(rows.every((r) => r.waiting === null)).toBe(true);
        const text = (await Promise.all(run.workers.map((w) => w.scrapeMetrics()))).join('\n');
        expect(text).toMatch(/sluice_limit_waits_total\{limit="tenant:lim.start"\} [1-9]/);
      } finally {
        await run.stop();
      }
      // the bound itself, last so a failure above shows its own message
      expect(rec.state.most.get('ta')).toBeLessThanOrEqual(2);
      expect(rec.state.most.get('tb')).toBeLessThanOrEqual(2);
    });

    it(`maxRunning per API key: each submitting key has at most 1 job running [${runtime}]`, async () => {
      const { database } = ctx();
      const rec = recorder();
      const job = limitedKind({ perKey: { maxRunning: 1 } });
      const keys = ['k1', 'k1', 'k1', 'k1', 'k2', 'k2', 'k2', 'k2'];
      const run = await start(job, rec, (_t, n) => keys[n] as string);
      try {
        const ids = await submit(
          database,
          keys.map((apiKeyId) => ({ tenantId: 'tk', apiKeyId })),
        );
        const rows = await settle(database, ids);
        expect(new Set(rows.map((r) => r.state))).toEqual(new Set(['succeeded']));
        expect(rows.every((r) => r.attempts === 1)).toBe(true);
        expect(rec.state.most.get('k1')).toBeLessThanOrEqual(1);
        expect(rec.state.most.get('k2')).toBeLessThanOrEqual(1);
        // the keys are counted apart: both ran at once at some point
        expect(rec.state.mostTotal).toBe(2);
      } finally {
        await run.stop();
      }
    });

    it(`startsPerSecond of the kind: no 1 s window holds more than burst + rate starts [${runtime}]`, async () => {
      const { database } = ctx();
      const rec = recorder();
      const job = limitedKind({ startsPerSecond: 5 });
      const run = await start(job, rec, () => 'all');
      try {
        const ids = await submit(database, Array(15).fill({ tenantId: 'tr' }));
        const rows = await settle(database, ids);
        expect(new Set(rows.map((r) => r.state))).toEqual(new Set(['succeeded']));
        expect(rows.every((r) => r.attempts === 1)).toBe(true);
        const at = [...rec.state.starts].sort((x, y) => x - y);
        expect(at).toHaveLength(15);
        // Counted per window at the handler's start, slack 2 for a token taken before a
        // loaded machine lets the handler begin.
        const worst = Math.max(...at.map((t) => at.filter((u) => u >= t && u < t + 1000).length));
        expect(worst).toBeLessThanOrEqual(5 + 5 + 2);
        // 15 starts at 5/s with a burst of 5 need at least 2 s
        expect((at.at(-1) as number) - (at[0] as number)).toBeGreaterThanOrEqual(1_800);
      } finally {
        await run.stop();
      }
    });
  });
}
