// Catches a broken trace: a job whose gateway, worker and provider spans do not share the trace
// the client's submit started. The gateway and the worker each get their own tracer provider and
// in-memory exporter (as two processes would), and are connected only through the database (the
// embedded runtime): the trace context can reach the worker only on the job row. The provider is
// a real HTTP server that records the `traceparent` each request carried.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { defineJob, defineJobs, parseTraceparent } from '@sluice/contracts';
import { createEmbeddedDispatcher, createGateway, serve } from '@sluice/gateway';
import { createApiKey, createLocalBlobStore } from '@sluice/storage';
import { createTestDatabase, TEST_DIALECTS } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { createEmbeddedRuntime, createWorker, defineHandler, silentLogger } from '@sluice/worker';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSluiceClient } from '../src/index.js';

const traced = defineJob({
  kind: 'trace.call',
  versions: { current: 'v1' },
  input: z.object({ n: z.number() }),
  output: z.object({ answer: z.string() }),
  providers: {
    echo: { provider: 'echo', modality: 'text', call: 'sync', idempotencyKey: 'none' },
  },
});
const jobs = defineJobs(traced);

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('test') };
}

const byName = (spans: readonly ReadableSpan[], name: string) =>
  spans.filter((s) => s.name === name);

for (const dialect of TEST_DIALECTS) {
  describe(`one trace per job [${dialect}]`, () => {
    const seen: IncomingHttpHeaders[] = [];
    const provider = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":1}'),
      );
    });
    const gw = tracing();
    const wk = tracing();
    const sent: (string | null)[] = [];
    let close: () => Promise<void>;
    let url = '';
    let apiKey = '';

    beforeAll(async () => {
      await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
      const providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1/echo`;
      const db = await createTestDatabase(dialect);
      const blobRoot = mkdtempSync(join(tmpdir(), 'sluice-trace-blobs-'));
      const blobs = createLocalBlobStore(blobRoot);
      const { database } = db;
      const gateway = createGateway({
        jobs,
        database,
        blobs,
        runtime: createEmbeddedDispatcher(database),
        logger: { warn() {}, error() {} },
        tracer: gw.tracer,
        uploads: { sweepIntervalMs: 0 },
      });
      const server = await serve(gateway, { port: 0 });
      url = server.url;
      apiKey = (await createApiKey(database.db, 'acme')).key;
      const worker = createWorker({
        jobs,
        handlers: {
          'trace.call': {
            v1: defineHandler(traced, {
              prepare: () => [{ key: 'u', input: null }],
              execute: async (_unit, ctx) => {
                const answer = await ctx.providers.call('echo', { url: providerUrl, body: {} });
                return JSON.stringify(answer.body);
              },
              finalize: (results) => ({ answer: String(results[0]?.result) }),
            }),
          },
        },
        database,
        blobs,
        concurrency: 2,
        logger: silentLogger,
        tracer: wk.tracer,
        metrics: { processMetrics: false },
        runtime: (ctx) => createEmbeddedRuntime({ database, ...ctx, pollMs: 20, blockMs: 200 }),
      });
      await worker.start();
      close = async () => {
        await worker.stop({ deadlineMs: 2000 });
        await server.close();
        await db.dispose();
        rmSync(blobRoot, { recursive: true, force: true });
        await new Promise((r) => provider.close(r));
      };
    });
    afterAll(() => close?.());

    it('client submit → gateway accept → worker attempt → provider call share one trace', async () => {
      const client = createSluiceClient<typeof jobs>({
        url,
        apiKey,
        WebSocket,
        fetch: (input, init) => {
          sent.push(new Headers(init?.headers).get('traceparent'));
          return fetch(input, init);
        },
      });
      const a = await client.submit('trace.call', { n: 1 });
      const b = await client.submit('trace.call', { n: 2 });
      expect(await a.result()).toEqual({ answer: '{"ok":1}' });
      expect(await b.result()).toEqual({ answer: '{"ok":1}' });
      await client.close();
      await waitFor(() => byName(wk.exporter.getFinishedSpans(), 'sluice.attempt').length === 2);

      // No SDK in the client process: it started a trace of its own for each submit (and sent
      // none with its other calls).
      const submits = sent.flatMap((h) => (h === null ? [] : [parseTraceparent(h)]));
      expect(submits).toHaveLength(2);
      expect(new Set(submits.map((t) => t?.traceId)).size).toBe(2);
      const gwSpans = gw.exporter.getFinishedSpans();
      const wkSpans = wk.exporter.getFinishedSpans();
      for (const [i, handle] of [a, b].entries()) {
        const client = submits[i]!;
        const accept = byName(gwSpans, 'sluice.accept').find(
          (s) => s.attributes['sluice.job.id'] === handle.id,
        );
        expect(accept?.spanContext().traceId).toBe(client.traceId);
        expect(accept?.parentSpanContext?.spanId).toBe(client.spanId);
        const attempt = byName(wkSpans, 'sluice.attempt').find(
          (s) => s.attributes['sluice.job.id'] === handle.id,
        );
        expect(attempt?.spanContext().traceId).toBe(client.traceId);
        expect(attempt?.parentSpanContext?.spanId).toBe(accept?.spanContext().spanId);
        expect(attempt?.attributes['sluice.attempt.outcome']).toBe('succeed');
        const call = byName(wkSpans, 'sluice.provider_call').find(
          (s) => s.parentSpanContext?.spanId === attempt?.spanContext().spanId,
        );
        expect(call?.spanContext().traceId).toBe(client.traceId);
        expect(call?.attributes).toMatchObject({
          'sluice.call.class': 'ambiguous',
          'sluice.call.outcome': 'succeeded',
        });
        // The request itself carried the call span's context.
        const carried = seen
          .map((h) => parseTraceparent(h.traceparent))
          .filter((t) => t?.traceId === client.traceId);
        expect(carried.map((t) => t?.spanId)).toEqual([call?.spanContext().spanId]);
      }
    });
  });
}
