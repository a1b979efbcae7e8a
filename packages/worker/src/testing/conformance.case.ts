// The one conformance suite every runtime passes: call `runtimeConformance(name,
// makeHarness)` with a harness for ONE runtime. Delivery cases live here; lifecycle cases
// (cancellation, drain, readiness) in `conformance-lifecycle.case.ts`. No case is skipped.

import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { waitFor } from '@sluice/testkit';
import { insertFile, newFileId, transitionJob, uploadKey } from '@sluice/storage';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { defineHandler } from '../attempt/define-handler.js';
import { registerLazyStartCases } from './conformance-lazy-start.case.js';
import { registerLifecycleCases } from './conformance-lifecycle.case.js';
import { registerPriorityCases } from './conformance-priorities.case.js';
import { registerChildCases } from './conformance-children.case.js';
import { registerWaitCases } from './conformance-waits.case.js';
import {
  ackAfterStoredCheck,
  allTerminal,
  events,
  jobRows,
  sleep,
  startTestWorker,
  submitJobs,
  TENANT,
  terminalEvents,
  testJob,
  TIMING,
  wrapConsumer,
  type ConformanceHarness,
} from './conformance-kit.js';

export type { ConformanceHarness, TransportFaults } from './conformance-kit.js';

function echoHandler(kind: string, runs: Map<string, number>, opts: { maxAttempts?: number } = {}) {
  const job = testJob(kind, opts);
  const handler = defineHandler(job, {
    prepare: (ctx) => [{ key: 'only', input: ctx.input.n }],
    execute: async (unit, ctx) => {
      runs.set(ctx.jobId, (runs.get(ctx.jobId) ?? 0) + 1);
      ctx.progress({ step: 1 });
      await sleep(ctx.input.ms ?? 0);
      return unit.input;
    },
    finalize: (results) => ({ n: results[0]?.result ?? -1 }),
  });
  return { job, handler, handlers: { [kind]: { v1: handler } } };
}

export function runtimeConformance(
  name: string,
  makeHarness: () => Promise<ConformanceHarness>,
): void {
  describe(`runtime conformance: ${name}`, () => {
    let harness: ConformanceHarness | undefined;
    const h = () => {
      if (!harness) throw new Error('harness not ready');
      return harness;
    };
    beforeAll(async () => {
      harness = await makeHarness();
    });
    afterAll(async () => {
      await harness?.dispose();
    });

    it('at-least-once: every dispatched job ends exactly once terminal, acked only after', async () => {
      const runs = new Map<string, number>();
      const { job, handlers } = echoHandler('conf.alo', runs);
      const inputs = Array.from({ length: 30 }, (_, n) => ({ n, ms: n % 4 }));
      const ids = await submitJobs(h(), job, inputs);
      const violations: string[] = [];
      const versions = [{ kind: job.kind, version: 'v1' }];
      const workers = ['alo-1', 'alo-2'].map((workerId) =>
        startTestWorker(
          h(),
          handlers,
          {
            workerId,
            readBatch: 3,
            consumer: ackAfterStoredCheck(
              h(),
              h().consumer({ workerId, versions, leaseMs: TIMING.leaseMs }),
              violations,
            ),
          },
          onTestFinished,
        ),
      );
      await Promise.all(workers.map((w) => w.start()));
      await waitFor(() => allTerminal(h(), ids), { timeoutMs: 15_000, message: 'all terminal' });
      const rows = await jobRows(h(), ids);
      expect(rows.map((r) => r.state)).toEqual(ids.map(() => 'succeeded'));
      expect(rows.map((r) => r.output)).toEqual(inputs.map(({ n }) => ({ n })));
      for (const id of ids) {
        expect(await terminalEvents(h(), id)).toHaveLength(1);
        const types = (await events(h(), id)).map((e) => e.type);
        expect(types.filter((t) => t === 'progress')).toHaveLength(1);
        expect(types.filter((t) => t === 'unit_done')).toHaveLength(1);
      }
      await waitFor(async () => (await h().pending(job.kind)) === 0, {
        message: 'nothing pending',
      });
      expect(violations).toEqual([]);
      const claimedBy = workers.map((w) => w.metrics().succeeded);
      expect(claimedBy.reduce((a, b) => a + b, 0)).toBe(ids.length);
    });

    it('own pending first: a restarted consumer takes back its own claims before their lease ends', async () => {
      const runs = new Map<string, number>();
      const { job, handlers } = echoHandler('conf.own', runs);
      const versions = [{ kind: job.kind, version: 'v1' }];
      const [j1] = await submitJobs(h(), job, [{ n: 1 }]);
      const long = 60_000;
      const before = h().consumer({ workerId: 'own-w', versions, leaseMs: long });
      await before.init();
      expect((await before.read(1)).map((d) => d.pointer?.jobId)).toEqual([j1]);
      // The process dies here: no ack, no release.
      const later = await submitJobs(h(), job, [{ n: 2 }, { n: 3 }]);
      const other = h().consumer({ workerId: 'own-other', versions, leaseMs: long });
      await other.init();
      const otherGot = await other.read(10);
      expect(otherGot.map((d) => d.pointer?.jobId)).not.toContain(j1);
      await other.release(otherGot, 0);
      await other.close();
      const again = h().consumer({ workerId: 'own-w', versions, leaseMs: long });
      await again.init();
      const back = await again.read(1);
      expect(back.map((d) => d.pointer?.jobId)).toEqual([j1]);
      // The transport counts every hand-out (a restart's re-read too); attempts are not counted there.
      expect(back[0]?.transportDeliveries).toBeGreaterThanOrEqual(2);
      await again.close();
      // A worker under the same name finishes all of it without waiting for the 60 s lease.
      const worker = startTestWorker(h(), handlers, { workerId: 'own-w' }, onTestFinished);
      await worker.start();
      const ids = [j1 as string, ...later];
      await waitFor(() => allTerminal(h(), ids), {
        timeoutMs: 5_000,
        message: 'own work finished',
      });
      expect((await jobRows(h(), ids)).map((r) => r.state)).toEqual([
        'succeeded',
        'succeeded',
        'succeeded',
      ]);
      expect(runs.get(j1 as string)).toBe(1);
      // Handed out three times (two restarts re-read it), run once. Where a claim only hands a
      // delivery out, that is one attempt in the database; where the claim starts the job
      // (`startsOnClaim`), each claim a restart took back was an attempt that died.
      expect((await jobRows(h(), [j1 as string]))[0]?.attempts).toBe(
        h().capabilities.startsOnClaim ? 3 : 1,
      );
    });

    it('bounded reclaim: a dead holder’s jobs are taken over only after the lease, a batch at a time', async () => {
      const runs = new Map<string, number>();
      const { job, handlers } = echoHandler('conf.reclaim', runs);
      const versions = [{ kind: job.kind, version: 'v1' }];
      const ids = await submitJobs(h(), job, [{ n: 1 }, { n: 2 }, { n: 3 }]);
      const dead = h().consumer({ workerId: 'dead-w', versions, leaseMs: TIMING.leaseMs });
      await dead.init();
      expect(await dead.read(3)).toHaveLength(3);
      const claimedAt = Date.now();
      // The dead worker had started them (attempt 1), then died. (Where the claim is the start,
      // the read above did that already.)
      if (!h().capabilities.startsOnClaim)
        await h().database.transaction(async (tx) => {
          for (const id of ids)
            expect((await transitionJob(tx, { id, event: 'start' })).ok).toBe(true);
        });
      const live = h().consumer({ workerId: 'live-w', versions, leaseMs: TIMING.leaseMs });
      await live.init();
      expect(await live.read(3)).toEqual([]);
      expect(Date.now() - claimedAt).toBeLessThan(TIMING.leaseMs);
      await sleep(Math.max(0, claimedAt + TIMING.leaseMs + 100 - Date.now()));
      const first = await live.read(2);
      const second = await live.read(2);
      expect([first.length, second.length]).toEqual([2, 1]);
      await live.release([...first, ...second], 0);
      await live.close();
      const worker = startTestWorker(
        h(),
        handlers,
        { workerId: 'reclaim-w', readBatch: 1 },
        onTestFinished,
      );
      await worker.start();
      await waitFor(() => allTerminal(h(), ids), {
        timeoutMs: 5_000,
        message: 'reclaimed jobs finished',
      });
      const rows = await jobRows(h(), ids);
      expect(rows.map((r) => [r.state, r.attempts])).toEqual(ids.map(() => ['succeeded', 2]));
      for (const id of ids) expect(await terminalEvents(h(), id)).toHaveLength(1);
      // The live consumer's release gave them back: to the transport (still `running` in the
      // database, so the worker reclaims them), or, where the claim is the start, to the queue.
      expect(worker.metrics().reclaimed).toBe(h().capabilities.startsOnClaim ? 0 : 3);
    });

    it('dead-letters after the attempt limit, counted in the database (own re-reads do not count)', async () => {
      const job = testJob('conf.dlq', { maxAttempts: 2 });
      let calls = 0;
      const handler = defineHandler(job, {
        prepare: () => [],
        execute: () => 0,
        finalize: () => {
          calls++;
          throw new Error('always broken');
        },
      });
      const versions = [{ kind: job.kind, version: 'v1' }];
      const [id] = await submitJobs(h(), job, [{ n: 1 }]);
      let transportDeliveries = 0;
      // Where a claim starts the job, a restart that takes it back is an attempt (a crash loop
      // uses the budget up: claim-jobs.ts); the re-reads below only apply where it is not.
      const rereads = h().capabilities.startsOnClaim ? 0 : 3;
      for (let i = 0; i < rereads; i++) {
        // Restarts that re-read their own pending entry without running it.
        const c = h().consumer({ workerId: 'dlq-w', versions, leaseMs: TIMING.leaseMs });
        await c.init();
        const got = await c.read(1);
        expect(got.map((d) => d.pointer?.jobId)).toEqual([id]);
        transportDeliveries = got[0]?.transportDeliveries ?? 0;
      }
      if (rereads > 0) expect(transportDeliveries).toBeGreaterThan(job.maxAttempts);
      expect((await jobRows(h(), [id as string]))[0]?.attempts).toBe(0);
      const worker = startTestWorker(
        h(),
        { [job.kind]: { v1: handler } },
        { workerId: 'dlq-w' },
        onTestFinished,
      );
      await worker.start();
      await waitFor(() => allTerminal(h(), [id as string]), {
        timeoutMs: 8_000,
        message: 'dead-lettered',
      });
      const [row] = await jobRows(h(), [id as string]);
      expect(row).toMatchObject({ state: 'dead_lettered', reason: 'MAX_ATTEMPTS', attempts: 2 });
      expect(row?.error).toMatchObject({ kind: 'error', message: 'always broken' });
      expect(calls).toBe(2);
      const stateEvents = (await events(h(), id as string)).filter((e) => e.type !== 'progress');
      expect(stateEvents.map((e) => ('to' in e ? e.to : e.type))).toEqual([
        'accepted',
        'queued',
        'running',
        'queued',
        'running',
        'dead_lettered',
      ]);
      await waitFor(async () => (await h().pending(job.kind)) === 0, {
        message: 'nothing pending',
      });
    });

    it('acks only after the stored outcome: a crash between the terminal write and the ack is a no-op redelivery', async () => {
      const runs = new Map<string, number>();
      const { job, handlers } = echoHandler('conf.ack', runs);
      const versions = [{ kind: job.kind, version: 'v1' }];
      const [id] = await submitJobs(h(), job, [{ n: 7 }]);
      const inner = h().consumer({ workerId: 'crash-w', versions, leaseMs: TIMING.leaseMs });
      // The process dies after its terminal transaction committed, before the ack reached the transport.
      const crashing = wrapConsumer(inner, { ack: async () => {} });
      const w1 = startTestWorker(
        h(),
        handlers,
        { workerId: 'crash-w', consumer: crashing },
        onTestFinished,
      );
      await w1.start();
      await waitFor(() => allTerminal(h(), [id as string]), { message: 'first run stored' });
      await w1.stop({ deadlineMs: 1000 });
      if (h().capabilities.acksWithOutcome) {
        // The stored outcome IS the ack here (the queue is the job table): there is no moment
        // between the two for a crash to fall into, and nothing is left to redeliver.
        expect(await h().pending(job.kind)).toBe(0);
        expect(runs.get(id as string)).toBe(1);
        expect(await terminalEvents(h(), id as string)).toHaveLength(1);
        return;
      }
      expect(await h().pending(job.kind)).toBe(1);
      const before = (await events(h(), id as string)).length;
      const violations: string[] = [];
      const w2 = startTestWorker(
        h(),
        handlers,
        {
          workerId: 'after-w',
          consumer: ackAfterStoredCheck(
            h(),
            h().consumer({ workerId: 'after-w', versions, leaseMs: TIMING.leaseMs }),
            violations,
          ),
        },
        onTestFinished,
      );
      await w2.start();
      await waitFor(async () => (await h().pending(job.kind)) === 0, {
        timeoutMs: 5_000,
        message: 'redelivered and acked',
      });
      expect(runs.get(id as string)).toBe(1);
      expect((await events(h(), id as string)).length).toBe(before);
      expect(await terminalEvents(h(), id as string)).toHaveLength(1);
      expect(w2.metrics().skipped).toBeGreaterThanOrEqual(1);
      expect(violations).toEqual([]);
    });

    it('stale: a job whose file is gone ends stale, acked, never run and never retried', async () => {
      const job = testJob('conf.stale');
      const ran: string[] = [];
      const handler = defineHandler(job, {
        prepare: () => [],
        execute: () => 0,
        finalize: async (_r, ctx) => {
          ran.push(ctx.jobId);
          let bytes = 0;
          const body = await ctx.files.open(fileId);
          for await (const chunk of Readable.fromWeb(body as never) as AsyncIterable<Uint8Array>)
            bytes += chunk.byteLength;
          return { n: bytes };
        },
      });
      const fileId = newFileId();
      const blobKey = uploadKey(TENANT, fileId);
      const put = await h().blobs.put(blobKey, Readable.from([Buffer.from('hello')]));
      await insertFile(h().database.db, {
        id: fileId,
        tenantId: TENANT,
        blobKey,
        size: put.size,
        sha256: put.sha256,
        contentType: 'text/plain',
        filename: 'a.txt',
        createdAt: new Date().toISOString(),
        expiresAt: null,
      });
      const [ok] = await submitJobs(h(), job, [{ n: 1 }], { fileIds: [fileId] });
      const [gone] = await submitJobs(h(), job, [{ n: 2 }], {
        fileIds: [`f_missing${randomUUID().slice(0, 8)}`],
      });
      const worker = startTestWorker(
        h(),
        { [job.kind]: { v1: handler } },
        { workerId: 'stale-w' },
        onTestFinished,
      );
      await worker.start();
      const ids = [ok as string, gone as string];
      await waitFor(() => allTerminal(h(), ids), { timeoutMs: 5_000, message: 'both finished' });
      const [okRow, goneRow] = await jobRows(h(), ids);
      expect(okRow).toMatchObject({ state: 'succeeded', output: { n: 5 } });
      // Never run; where the claim is the start, the claim counted one attempt.
      expect(goneRow).toMatchObject({
        state: 'stale',
        reason: 'FILE_MISSING',
        attempts: h().capabilities.startsOnClaim ? 1 : 0,
      });
      expect(ran).toEqual([ok]);
      await waitFor(async () => (await h().pending(job.kind)) === 0, {
        message: 'nothing pending',
      });
    });

    it('unroutable version: dead-lettered (at delivery, or after the grace when queued), never run by another version', async () => {
      const job = testJob('conf.route', { next: 'v2' });
      const v1Runs: string[] = [];
      const v1 = defineHandler(job, {
        prepare: () => [],
        execute: () => 0,
        finalize: (_r, ctx) => {
          v1Runs.push(ctx.jobId);
          return { n: 1 };
        },
      });
      const handlers = { [job.kind]: { v1 } };
      // (a) handed a v2 delivery while only v1 has a handler
      const [a] = await submitJobs(h(), job, [{ n: 1 }], { version: 'v2' });
      const both = [
        { kind: job.kind, version: 'v1' },
        { kind: job.kind, version: 'v2' },
      ];
      const w1 = startTestWorker(
        h(),
        handlers,
        {
          workerId: 'route-a',
          consumer: h().consumer({ workerId: 'route-a', versions: both, leaseMs: TIMING.leaseMs }),
        },
        onTestFinished,
      );
      await w1.start();
      await waitFor(() => allTerminal(h(), [a as string]), {
        timeoutMs: 5_000,
        message: 'a dead-lettered',
      });
      expect((await jobRows(h(), [a as string]))[0]).toMatchObject({
        state: 'dead_lettered',
        reason: 'VERSION_NOT_ROUTABLE',
      });
      await waitFor(async () => (await h().pending(job.kind)) === 0, {
        message: 'a finished in the transport',
      });
      await w1.stop({ deadlineMs: 1000 });
      // (b) queued on v2 while live workers serve only v1: the sweep, after the grace
      const grace = 400;
      const [b] = await submitJobs(h(), job, [{ n: 2 }], { version: 'v2' });
      const [c] = await submitJobs(h(), job, [{ n: 3 }]);
      const w2 = startTestWorker(
        h(),
        handlers,
        { workerId: 'route-b', sweepEveryMs: 100, unroutableGraceMs: grace },
        onTestFinished,
      );
      await w2.start();
      await waitFor(() => allTerminal(h(), [b as string, c as string]), {
        timeoutMs: 5_000,
        message: 'b and c finished',
      });
      const [bRow, cRow] = await jobRows(h(), [b as string, c as string]);
      expect(bRow).toMatchObject({
        state: 'dead_lettered',
        reason: 'VERSION_NOT_ROUTABLE',
        attempts: 0,
      });
      expect(cRow?.state).toBe('succeeded');
      const bEvents = await events(h(), b as string);
      const queuedAt = Date.parse(bEvents.find((e) => 'to' in e && e.to === 'queued')?.at ?? '');
      const deadAt = Date.parse(bEvents.find((e) => e.type === 'dead_letter')?.at ?? '');
      expect(deadAt - queuedAt).toBeGreaterThanOrEqual(grace);
      expect(v1Runs).toEqual([c]);
      expect(w2.metrics().sweptUnroutable).toBe(1);
    });

    registerLifecycleCases(h);
    registerLazyStartCases(h);
    registerPriorityCases(h);
    registerWaitCases(h);
    registerChildCases(h);
  });
}
