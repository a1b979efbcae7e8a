// Catches a review flow that pays twice or loses the job: a sync provider call whose connection
// dropped after the provider billed parks the job in needs_review; the typed client lists it
// with its unit and provider; approve authorises exactly ONE more call (recorded in the ledger
// as authorised, with who and why) and the job succeeds; discard fails it. Real gateway, real
// worker, the fake provider as its own process (its billing ledger is the proof).
import { defineJob, defineJobs } from '@sluice/contracts';
import {
  createEmbeddedDispatcher,
  createGateway,
  serve,
  type RunningGateway,
} from '@sluice/gateway';
import { callsForJob, createApiKey, createLocalBlobStore } from '@sluice/storage';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '@sluice/storage/testing';
import { startFakeProvider, type FakeProvider } from '@sluice/testkit';
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
import {
  createSluiceClient,
  isJobFailedError,
  isJobNeedsReviewError,
  type SluiceClient,
} from '../src/index.js';

const speak = defineJob({
  kind: 'paid.speak',
  versions: { current: 'v1' },
  input: z.object({ line: z.string().min(1).max(100) }).strict(),
  output: z.object({ audio: z.string() }),
  providers: {
    // A synchronous call with no proven idempotency: ambiguous, never retried by itself.
    tts: { provider: 'fake', modality: 'speech', call: 'sync', idempotencyKey: 'none' },
  },
  maxAttempts: 3,
});
const jobs = defineJobs(speak);
type Jobs = typeof jobs;

function handlerFor(providerUrl: string) {
  return defineHandler(speak, {
    // The unit key is the line: the test arms provider faults by it before submitting.
    prepare: (ctx) => [{ key: ctx.input.line, input: ctx.input.line }],
    execute: async (unit, ctx) => {
      const answer = await ctx.providers.call('tts', (call) => ({
        method: 'POST',
        url: `${providerUrl}/v1/sync/generate`,
        headers: { 'x-job-id': call.jobId, 'x-unit-key': call.unitKey },
        body: { text: unit.input },
      }));
      return String((answer.body as { result: { output: string } }).result.output);
    },
    finalize: (results) => ({ audio: results.map((r) => r.result).join(' ') }),
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

for (const dialect of TEST_DIALECTS) {
  describe(`review end to end [${dialect}]`, () => {
    let db: TestDatabase;
    let provider: FakeProvider;
    let server: RunningGateway;
    let close: () => Promise<void>;
    let worker: Worker;
    let client: SluiceClient<Jobs>;
    let keyId: string;

    beforeAll(async () => {
      db = await createTestDatabase(dialect);
      provider = await startFakeProvider();
      const blobRoot = mkdtempSync(join(tmpdir(), 'sluice-review-'));
      const { database } = db;
      const gateway = createGateway({
        jobs,
        database,
        blobs: createLocalBlobStore(blobRoot),
        runtime: createEmbeddedDispatcher(database),
        logger: { warn() {}, error() {} },
        eventPollMs: 20,
        servedVersionsCacheMs: 0,
      });
      server = await serve(gateway, { port: 0 });
      await gateway.hub.ready();
      const key = await createApiKey(database.db, 'acme');
      keyId = key.id;
      worker = createWorker({
        jobs,
        handlers: { [speak.kind]: { v1: handlerFor(provider.url) } },
        database,
        concurrency: 2,
        leaseMs: 3000,
        renewEveryMs: 300,
        logger: silentLogger,
        runtime: (ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 20, blockMs: 200 }),
      });
      await worker.start();
      client = createSluiceClient<Jobs>({ url: server.url, apiKey: key.key, WebSocket });
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

    it('approve: exactly one more call, recorded as authorised, then the job succeeds', async () => {
      await provider.setFaults([{ unitKey: 'approve me', fault: 'commit-then-drop' }]);
      const handle = await client.submit('paid.speak', { line: 'approve me' });
      const parked = await rejection(handle.result());
      expect(isJobNeedsReviewError(parked)).toBe(true);

      const listed = (await client.review.list()).items.find((j) => j.id === handle.id);
      expect(listed).toMatchObject({
        state: 'needs_review',
        review: { unitKey: 'approve me', provider: 'fake' },
      });
      expect(await provider.billedCount({ jobId: handle.id })).toBe(1);

      const again = await client.review.approve(
        handle.id,
        'dropped after billing; ok to redo',
        'paid.speak',
      );
      expect(await again.result()).toEqual({ audio: expect.stringContaining('generated:') });
      // Billed twice in all: the original and the ONE call a person authorised.
      expect(await provider.billedCount({ jobId: handle.id })).toBe(2);
      const ledger = await callsForJob(db.database.db, handle.id);
      expect(ledger.map((r) => r.outcome)).toEqual([
        'connection_dropped',
        'authorised',
        'succeeded',
      ]);
      expect(ledger[1]).toMatchObject({
        authorisedBy: keyId,
        note: 'dropped after billing; ok to redo',
        unitKey: 'approve me',
        callName: 'tts',
      });
      expect((await again.status()).attempts).toBe(1);
    });

    it('discard: the job fails with the note as its reason, nothing more is called', async () => {
      await provider.setFaults([{ unitKey: 'discard me', fault: 'commit-then-drop' }]);
      const handle = await client.submit('paid.speak', { line: 'discard me' });
      expect(isJobNeedsReviewError(await rejection(handle.result()))).toBe(true);
      const view = await client.review.discard(handle.id, 'billed once already; not worth it');
      expect(view).toMatchObject({ state: 'failed', reason: 'billed once already; not worth it' });
      expect(isJobFailedError(await rejection(handle.result()))).toBe(true);
      expect(await provider.billedCount({ jobId: handle.id })).toBe(1);
      const outcomes = (await callsForJob(db.database.db, handle.id)).map((r) => r.outcome);
      expect(outcomes).toEqual(['connection_dropped']);
    });
  });
}
