// One trace per job across processes: the app's span around the client's submit (this process,
// with the SDK, an AsyncLocalStorage context manager and the W3C propagator registered), the
// gateway's accept (its own tracer provider), and the worker's attempt and provider-call spans
// in a separate OS process that exports them on stdout. The worker process learns the trace only
// from the job row in the shared database; the provider sees the call span's traceparent.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { parseTraceparent } from '@sluice/contracts';
import { createEmbeddedDispatcher, createGateway, serve } from '@sluice/gateway';
import { createApiKey, createLocalBlobStore } from '@sluice/storage';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '@sluice/storage/testing';
import { spawnNode, waitFor, type ChildHandle } from '@sluice/testkit';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSluiceClient, type JobHandle } from '../src/index.js';
import { type traced, tracedJobs } from './fixtures/traced-job.js';
import type { SpanLine } from './fixtures/traced-worker-child.js';

function inMemory() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, provider };
}

/** The worker process's spans, from its `SPAN {json}` lines. */
const workerSpans = (child: ChildHandle): SpanLine[] =>
  child
    .output()
    .split('\n')
    .filter((l) => l.startsWith('SPAN '))
    .map((l) => JSON.parse(l.slice(5)) as SpanLine);

const jobIdOf = (s: ReadableSpan | SpanLine) => s.attributes['sluice.job.id'];
// Deployed shape where PostgreSQL is available; the same database another process opens.
const dialect = TEST_DIALECTS.includes('postgres') ? 'postgres' : 'sqlite';

describe(`one trace per job across processes [${dialect}]`, () => {
  const app = inMemory();
  const gw = inMemory();
  const seen: IncomingHttpHeaders[] = [];
  const providerServer = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":1}'));
  });
  let db: TestDatabase;
  let child: ChildHandle;
  let close: () => Promise<void>;
  let url = '';
  let apiKey = '';

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(app.provider);
    await new Promise<void>((r) => providerServer.listen(0, '127.0.0.1', r));
    const providerUrl = `http://127.0.0.1:${(providerServer.address() as AddressInfo).port}/v1/echo`;
    db = await createTestDatabase(dialect);
    const blobRoot = mkdtempSync(join(tmpdir(), 'sluice-trace-xp-'));
    const gateway = createGateway({
      jobs: tracedJobs,
      database: db.database,
      blobs: createLocalBlobStore(blobRoot),
      runtime: createEmbeddedDispatcher(db.database),
      logger: { warn() {}, error() {} },
      tracer: gw.provider.getTracer('gateway'),
      uploads: { sweepIntervalMs: 0 },
    });
    const server = await serve(gateway, { port: 0 });
    url = server.url;
    apiKey = (await createApiKey(db.database.db, 'acme')).key;
    child = await spawnNode(new URL('./fixtures/traced-worker-child.ts', import.meta.url), {
      env: { DATABASE_URL: db.url, BLOBS_DIR: blobRoot, PROVIDER_URL: providerUrl },
      readyLine: /^READY$/m,
      readyTimeoutMs: 60_000,
    });
    close = async () => {
      await child?.stop();
      await server.close();
      await db.dispose();
      rmSync(blobRoot, { recursive: true, force: true });
      await new Promise((r) => providerServer.close(r));
      trace.disable();
      propagation.disable();
      context.disable();
    };
  }, 120_000);
  afterAll(() => close?.());

  it("the app's submit span, the gateway's accept and the worker process's attempt and call share one trace per job", async () => {
    const client = createSluiceClient<typeof tracedJobs>({ url, apiKey, WebSocket });
    const tracer = trace.getTracer('app');
    const submit = (n: number) =>
      tracer.startActiveSpan('app.submit', async (span) => {
        try {
          return await client.submit('trace.call', { n });
        } finally {
          span.end();
        }
      });
    const handles: JobHandle<typeof traced>[] = [await submit(1), await submit(2)];
    for (const h of handles) expect(await h.result()).toEqual({ answer: '{"ok":1}' });
    await client.close();
    await waitFor(
      () => workerSpans(child).filter((s) => s.name === 'sluice.attempt').length === 2,
      { timeoutMs: 10_000, message: 'attempt spans from the worker process' },
    );

    const appSpans = app.exporter.getFinishedSpans().filter((s) => s.name === 'app.submit');
    expect(appSpans).toHaveLength(2);
    const spans = workerSpans(child);
    const traces = new Set<string>();
    for (const [i, handle] of handles.entries()) {
      const root = appSpans[i]!.spanContext();
      traces.add(root.traceId);
      const accept = gw.exporter
        .getFinishedSpans()
        .find((s) => s.name === 'sluice.accept' && jobIdOf(s) === handle.id);
      expect(accept?.spanContext().traceId).toBe(root.traceId);
      expect(accept?.parentSpanContext?.spanId).toBe(root.spanId);
      const attempt = spans.find((s) => s.name === 'sluice.attempt' && jobIdOf(s) === handle.id);
      expect(attempt?.pid).toBe(child.pid);
      expect(attempt?.pid).not.toBe(process.pid);
      expect(attempt?.traceId).toBe(root.traceId);
      expect(attempt?.parentSpanId).toBe(accept?.spanContext().spanId);
      const call = spans.find(
        (s) => s.name === 'sluice.provider_call' && s.parentSpanId === attempt?.spanId,
      );
      expect(call?.traceId).toBe(root.traceId);
      // The request that left the worker process carried the call span's context.
      const carried = seen
        .map((h) => parseTraceparent(h.traceparent))
        .filter((t) => t?.traceId === root.traceId);
      expect(carried.map((t) => t?.spanId)).toEqual([call?.spanId]);
    }
    expect(traces.size).toBe(2);
  });
});
