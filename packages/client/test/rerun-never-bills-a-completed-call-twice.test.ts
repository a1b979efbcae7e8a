// Catches an operator's way back that pays twice: a rerun (whole, or from a unit) and a requeue
// of a failed job must answer every provider call that was already answered from the ledger —
// never send it (nor bill it) again — under a new epoch, reusing the checkpoints they keep. The
// seeded bug `rerun-forgets-ledger` (the rerun starts with a clean ledger) turns this red. Real
// gateway, real worker, the fake provider as its own process: its billing ledger is the proof.
import { defineJob, defineJobs, NonRetriableError } from '@sluice/contracts';
import {
  createEmbeddedDispatcher,
  createGateway,
  serve,
  type RunningGateway,
} from '@sluice/gateway';
import { callsForJob, createApiKey, createLocalBlobStore, getUnits } from '@sluice/storage';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '@sluice/storage/testing';
import { startFakeProvider, waitFor, type FakeProvider } from '@sluice/testkit';
import {
  createEmbeddedRuntime,
  createWorker,
  defineHandler,
  silentLogger,
  type Worker,
} from '@sluice/worker';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
// The gateway's seeded bugs, chosen by SLUICE_SEEDED_BUG (test processes only).
import { gatewayHooksFromEnv } from '../../gateway/src/testing/seeded-bugs.js';
import { createSluiceClient, type SluiceClient } from '../src/index.js';

const narrate = defineJob({
  kind: 'paid.narrate',
  versions: { current: 'v1' },
  input: z.object({ units: z.number().int().min(1).max(5), name: z.string() }).strict(),
  output: z.object({ audio: z.string() }),
  providers: {
    // Synchronous, no proven idempotency: ambiguous — a repeat could only be billed again.
    tts: { provider: 'fake', modality: 'speech', call: 'sync', idempotencyKey: 'none' },
  },
  maxAttempts: 3,
});
const jobs = defineJobs(narrate);

/** Names whose finalize fails for good (NonRetriable): the job ends `failed`, units stored. */
const failing = new Set<string>();

function handlerFor(providerUrl: string) {
  return defineHandler(narrate, {
    prepare: (ctx) =>
      Array.from({ length: ctx.input.units }, (_, i) => ({ key: `u${i}`, input: i })),
    execute: async (unit, ctx) => {
      const answer = await ctx.providers.call('tts', (call) => ({
        method: 'POST',
        url: `${providerUrl}/v1/sync/generate`,
        headers: { 'x-job-id': call.jobId, 'x-unit-key': call.unitKey },
        body: { text: `${ctx.input.name}-${unit.input}` },
      }));
      return String((answer.body as { result: { output: string } }).result.output);
    },
    finalize: (results, ctx) => {
      if (failing.has(ctx.input.name)) throw new NonRetriableError('finalize bug (fixed later)');
      return { audio: results.map((r) => r.result).join(' ') };
    },
  });
}

for (const dialect of TEST_DIALECTS) {
  describe(`rerun never bills a completed call twice [${dialect}]`, () => {
    let db: TestDatabase;
    let provider: FakeProvider;
    let server: RunningGateway;
    let worker: Worker;
    let client: SluiceClient<typeof jobs>;
    let close: () => Promise<void>;

    beforeAll(async () => {
      db = await createTestDatabase(dialect);
      provider = await startFakeProvider();
      const blobRoot = mkdtempSync(join(tmpdir(), 'sluice-rerun-'));
      const { database } = db;
      const hooks = gatewayHooksFromEnv();
      const gateway = createGateway({
        jobs,
        database,
        blobs: createLocalBlobStore(blobRoot),
        runtime: createEmbeddedDispatcher(database),
        logger: { warn() {}, error() {} },
        eventPollMs: 20,
        servedVersionsCacheMs: 0,
        ...(hooks ? { hooks } : {}),
      });
      server = await serve(gateway, { port: 0 });
      await gateway.hub.ready();
      const key = await createApiKey(database.db, 'acme', {
        scopes: ['jobs:submit', 'jobs:read', 'jobs:manage'],
      });
      worker = createWorker({
        jobs,
        handlers: { [narrate.kind]: { v1: handlerFor(provider.url) } },
        database,
        concurrency: 2,
        // One unit at a time: checkpoints are stored in plan order, which "from a unit" follows.
        unitConcurrency: 1,
        leaseMs: 3000,
        renewEveryMs: 300,
        logger: silentLogger,
        runtime: (ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 20, blockMs: 200 }),
      });
      await worker.start();
      client = createSluiceClient({ url: server.url, apiKey: key.key, WebSocket });
      close = async () => {
        await client.close();
        await worker.stop({ deadlineMs: 2000 });
        await server.close();
        await gateway.close();
        await provider[Symbol.asyncDispose]();
        await db.dispose();
        rmSync(blobRoot, { recursive: true, force: true });
      };
    });
    afterAll(async () => {
      await close?.();
    });

    /** Waits until the job's `n`th attempt ended in `state`. */
    async function ended(id: string, n: number, state: string) {
      await waitFor(
        async () => {
          const d = await client.jobs.detail(id);
          return d.attempts.length === n && d.job.state === state;
        },
        { timeoutMs: 15_000, message: `${id}: attempt ${n} ${state}` },
      );
      return client.jobs.detail(id);
    }
    const sent = async (id: string) => (await provider.ledger({ jobId: id })).length;

    it('a rerun of a succeeded job answers every call from the ledger: nothing is sent again', async () => {
      const job = await client.submit('paid.narrate', { units: 3, name: 'whole' });
      const first = await job.result();
      expect(await provider.billedCount({ jobId: job.id })).toBe(3);
      const before = await client.jobs.detail(job.id);

      const r = await client.jobs.rerun(job.id, { note: 'new mixing code deployed' });
      expect(r).toMatchObject({ id: job.id, state: 'queued', unitsDropped: 0 });
      const after = await ended(job.id, 2, 'succeeded');
      expect(after.job.output).toEqual(first);
      expect(await provider.billedCount({ jobId: job.id })).toBe(3);
      expect(await sent(job.id)).toBe(3);
      // Our ledger gained no row: every call of the rerun was answered from it.
      expect(after.calls).toEqual(before.calls);
      expect(after.attempts[1]?.epoch).toBeGreaterThan(before.attempts[0]?.epoch ?? Infinity);
    });

    it('a failed job requeued reuses its checkpoints; rerun from a unit runs it and the later ones again, billing nothing', async () => {
      failing.add('fixme');
      const job = await client.submit('paid.narrate', { units: 3, name: 'fixme' });
      await ended(job.id, 1, 'failed');
      expect(await provider.billedCount({ jobId: job.id })).toBe(3);
      // A failed job keeps its checkpoints: a requeue is the later attempt that reads them.
      const stored = [...(await getUnits(db.database.db, job.id)).keys()];
      expect(stored.filter((k) => k.startsWith('unit:')).sort()).toEqual([
        'unit:u0',
        'unit:u1',
        'unit:u2',
      ]);
      failing.delete('fixme');

      expect(await client.jobs.requeue(job.id, { note: 'finalize fixed' })).toMatchObject({
        state: 'queued',
      });
      const requeued = await ended(job.id, 2, 'succeeded');
      expect(requeued.events.filter((e) => e.type === 'unit_done' && e.reused)).toHaveLength(3);
      expect(await sent(job.id)).toBe(3);

      const r = await client.jobs.rerun(job.id, { fromUnit: 'u1' });
      expect(r).toMatchObject({ state: 'queued', unitsDropped: 2 });
      const rerun = await ended(job.id, 3, 'succeeded');
      const last = rerun.events.filter((e) => e.type === 'unit_done').slice(-3);
      expect(
        last
          .map((e) => [
            e.type === 'unit_done' && e.unitKey,
            e.type === 'unit_done' && (e.reused ?? false),
          ])
          .sort(),
      ).toEqual([
        ['u0', true],
        ['u1', false],
        ['u2', false],
      ]);
      // u1 and u2 ran again: their calls were answered from the ledger, not sent.
      expect(await provider.billedCount({ jobId: job.id })).toBe(3);
      expect(await sent(job.id)).toBe(3);
      expect((await callsForJob(db.database.db, job.id)).map((c) => c.outcome)).toEqual([
        'succeeded',
        'succeeded',
        'succeeded',
      ]);
    });

    it('refuses what it cannot do: a running job, an unknown unit, a key without jobs:manage', async () => {
      const job = await client.submit('paid.narrate', { units: 1, name: 'refusals' });
      await job.result();
      const noUnit = await client.jobs.rerun(job.id, { fromUnit: 'nope' }).catch((e: unknown) => e);
      expect(noUnit).toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringContaining('fromUnit'),
      });
      const notFailed = await client.jobs.requeue(job.id).catch((e: unknown) => e);
      expect(notFailed).toMatchObject({ code: 'CONFLICT' });
      const reader = await createApiKey(db.database.db, 'acme', { scopes: ['jobs:read'] });
      const weak = createSluiceClient({ url: server.url, apiKey: reader.key, WebSocket });
      const denied = await weak.jobs.rerun(job.id).catch((e: unknown) => e);
      await weak.close();
      expect(denied).toMatchObject({ code: 'FORBIDDEN' });
      expect((await client.jobs.detail(job.id)).attempts).toHaveLength(1);
    });
  });
}
