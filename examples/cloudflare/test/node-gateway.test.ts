// A Node gateway dispatching to Cloudflare Workflows, end to end with real parts: the gateway (on
// SQLite and on PostgreSQL) with its REST dispatcher pointed at a local fake of the Workflows REST
// API whose create starts the instance on a real workerd Workflow (`wrangler dev`,
// test/remote-worker.ts, which has no D1 at all), and that Workflow's job store is the gateway:
// it reads its job and writes everything — start, progress, unit events, ledger rows, the outcome
// — through the signed callbacks, applied by the gateway's fenced repository functions. Driven
// with the typed client; the provider is a real HTTP server that looks in the gateway's database
// when a request reaches it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSluiceClient, type SluiceClient } from '@sluice/client';
import { createGateway, serve } from '@sluice/gateway';
import {
  createWorkflowsRestDispatcher,
  RUNTIME_STORE_PATH,
  signStateReport,
  STATE_CALLBACK_PATH,
  stateCallbackRoutes,
} from '@sluice/runtime-cloudflare-workflows';
import {
  callsForJob,
  callsForUnit,
  createApiKey,
  createLocalBlobStore,
  getJobById,
  listEvents,
  type Db,
} from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { freePort, waitFor } from '@sluice/testkit';
import { EventSource } from 'eventsource';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
// By path: a test helper of the gateway package, not part of its exports.
import { startFakeWorkflowsApi } from '../../../packages/runtime-cloudflare-workflows/src/testing/fake-workflows-api.js';
import { remoteJobs } from './remote-jobs.js';
import { startWranglerDev, type WranglerDev } from './wrangler-dev.js';

const SECRET = 'node-gateway-e2e-shared-secret-0123456789';
type Jobs = typeof remoteJobs;

let dev: WranglerDev;
let gatewayPort: number;
/** The database of the gateway under test (the provider looks in it). */
let currentDb: Db | undefined;
/** Per request the provider got: the unit's ledger outcomes at the moment it arrived. */
const seenByProvider: { jobId: string; unitKey: string; ledger: string[]; at: number }[] = [];
let provider: Server;
let providerUrl: string;

beforeAll(async () => {
  provider = createServer((req, res) => {
    void (async () => {
      for await (const _ of req) void _;
      const jobId = String(req.headers['x-job-id']);
      const unitKey = String(req.headers['x-unit-key']);
      const rows = currentDb ? await callsForUnit(currentDb, jobId, unitKey) : [];
      seenByProvider.push({ jobId, unitKey, ledger: rows.map((r) => r.outcome), at: Date.now() });
      await new Promise((r) => setTimeout(r, Number(req.headers['x-delay-ms'] ?? 0)));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ text: `done ${unitKey}` }));
    })();
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  // One workerd for both dialects: each dialect's gateway listens on the same port in turn.
  gatewayPort = await freePort();
  dev = await startWranglerDev('wrangler.remote.jsonc', {
    migrate: false,
    vars: {
      SLUICE_GATEWAY_URL: `http://127.0.0.1:${gatewayPort}`,
      SLUICE_CALLBACK_SECRET: SECRET,
    },
  });
}, 240_000);
afterAll(async () => {
  await dev?.stop();
  await new Promise((r) => provider?.close(r));
});

const sentences = (n: number) =>
  Array.from({ length: n }, (_, i) => `Sentence number ${i} is here.`).join(' ');

describeEachDialect('a Node gateway running jobs on a workerd Workflow', (ctx) => {
  let client: SluiceClient<Jobs>;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const { database } = ctx();
    currentDb = database.db;
    const fake = await startFakeWorkflowsApi({
      accountId: 'acc',
      apiToken: 'tok',
      // The REST create becomes a real instance on the workerd Workflow.
      onCreate: async (instance) => {
        const res = await fetch(`${dev.url}/__test/create`, {
          method: 'POST',
          body: JSON.stringify({ id: instance.id, params: instance.params }),
        });
        if (!res.ok) throw new Error(`create in workerd: ${res.status} ${await res.text()}`);
      },
    });
    const blobRoot = mkdtempSync(join(tmpdir(), 'sluice-e2e-blobs-'));
    const gateway = createGateway({
      jobs: remoteJobs,
      database,
      blobs: createLocalBlobStore(blobRoot),
      runtime: createWorkflowsRestDispatcher({
        database,
        accountId: 'acc',
        apiToken: 'tok',
        apiBase: fake.url,
        workflows: { v1: 'sluice-remote-v1' },
      }),
      runtimeRoutes: stateCallbackRoutes({ secret: SECRET }),
      logger: { warn() {}, error() {} },
      eventPollMs: 50,
    });
    const server = await serve(gateway, { port: gatewayPort });
    await gateway.hub.ready();
    const { key } = await createApiKey(database.db, 'acme');
    client = createSluiceClient<Jobs>({
      url: `http://127.0.0.1:${gatewayPort}`,
      apiKey: key,
      subscriptions: 'sse',
      EventSource,
    });
    close = async () => {
      await client.close();
      await server.close();
      await fake.close();
      rmSync(blobRoot, { recursive: true, force: true });
    };
  });
  afterAll(async () => {
    await close?.();
    currentDb = undefined;
  });

  it('submit → the workerd Workflow → progress, then the terminal event, in order → result', async () => {
    const job = await client.submit('demo.summarize', { text: sentences(3) });
    const types: string[] = [];
    for await (const event of job.watch()) {
      types.push(event.type === 'state' ? `state:${event.to}` : event.type);
    }
    expect(types.filter((t) => t === 'progress')).toHaveLength(3);
    expect(types.indexOf('progress')).toBeGreaterThan(types.indexOf('state:running'));
    expect(types.at(-1)).toBe('state:succeeded');
    expect((await job.result()).words).toBe(15);
    // Everything the run wrote is in the gateway's database, under the epoch it started.
    const row = await getJobById(ctx().database.db, job.id);
    expect(row).toMatchObject({ state: 'succeeded', attempts: 1, epoch: 1 });
    const stored = await listEvents(ctx().database.db, job.id);
    expect(stored.filter((e) => e.type === 'unit_done')).toHaveLength(3);
  }, 90_000);

  it("each paid call's ledger row is in the gateway's database before the request reaches the provider", async () => {
    const job = await client.submit('test.paid', { providerUrl, units: 3 });
    expect(await job.result()).toEqual({ answers: ['done u0', 'done u1', 'done u2'] });
    const seen = seenByProvider.filter((s) => s.jobId === job.id);
    expect(seen.map((s) => s.unitKey).sort()).toEqual(['u0', 'u1', 'u2']);
    for (const s of seen) expect(s.ledger).toEqual(['pending']);
    const ledger = await callsForJob(ctx().database.db, job.id);
    expect(ledger.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(new Set(ledger.map((r) => r.epoch))).toEqual(new Set([1]));
  }, 90_000);

  /** A signed request to the gateway's runtime routes, as a Worker would send it. */
  async function signed(path: string, payload: unknown): Promise<Response> {
    const body = JSON.stringify(payload);
    return fetch(`http://127.0.0.1:${gatewayPort}${path}`, {
      method: 'POST',
      headers: { ...(await signStateReport(SECRET, body, Date.now())) },
      body,
    });
  }
  const instanceOf = async (id: string) =>
    (await (await fetch(`${dev.url}/__test/instance?id=${id}`)).json()) as {
      status: string;
      output?: unknown;
    };

  it("a stale attempt's writes are fenced while the run holds the job: 409, no row", async () => {
    const job = await client.submit('test.paid', { providerUrl, units: 2, delayMs: 1500 });
    const db = ctx().database.db;
    await waitFor(async () => (await callsForJob(db, job.id)).length > 0, {
      timeoutMs: 60_000,
      intervalMs: 50,
      message: 'no call started',
    });
    const row = (await getJobById(db, job.id))!;
    expect(row).toMatchObject({ state: 'running', epoch: 1 });
    // The attempt before the run's (epoch 0, the queued row it started from).
    const ledger = await signed(RUNTIME_STORE_PATH, {
      op: 'call_intent',
      jobId: job.id,
      tenantId: row.tenantId,
      unitKey: 'u1',
      callName: 'complete',
      attemptId: 'stale',
      epoch: 0,
      stage: 'execute',
      provider: 'fake',
      modality: 'text',
      callClass: 'ambiguous',
    });
    const report = await signed(STATE_CALLBACK_PATH, {
      id: job.id,
      tenantId: row.tenantId,
      kind: row.kind,
      fence: { epoch: 0, lastSeq: row.lastSeq, state: 'running' },
      state: 'failed',
      epoch: 0,
      attempts: 1,
      attemptId: 'stale',
      leaseUntil: null,
      leaseOwner: null,
      events: [],
    });
    expect([ledger.status, report.status]).toEqual([409, 409]);
    // Nothing of the stale attempt landed; the row still belongs to the live run (whose other
    // unit may add its own ledger row and events meanwhile: units run side by side).
    const calls = await callsForJob(db, job.id);
    expect(calls.filter((c) => c.attemptId === 'stale' || c.epoch === 0)).toEqual([]);
    expect(await getJobById(db, job.id)).toMatchObject({
      state: 'running',
      epoch: 1,
      attemptId: row.attemptId,
      attempts: row.attempts,
    });
    // The live run was not disturbed.
    expect(await job.result()).toEqual({ answers: ['done u0', 'done u1'] });
  }, 90_000);

  it('a cancel on the Node gateway stops the run at its next step: no ledger row, call or write after it', async () => {
    const units = 8;
    const job = await client.submit('test.paid', { providerUrl, units, delayMs: 400 });
    const db = ctx().database.db;
    await waitFor(async () => (await listEvents(db, job.id)).some((e) => e.type === 'unit_done'), {
      timeoutMs: 60_000,
      intervalMs: 50,
      message: 'no unit finished',
    });
    await job.cancel();
    const cancelledAt = Date.now();
    const atCancel = {
      row: (await getJobById(db, job.id))!,
      ledger: (await callsForJob(db, job.id)).length,
    };
    expect(atCancel.row.state).toBe('cancelled');
    // The run's next write was fenced (409): it read the cancel and ended without storing more.
    await waitFor(async () => (await instanceOf(job.id)).status === 'complete', {
      timeoutMs: 60_000,
      intervalMs: 200,
      message: 'the instance did not end',
    });
    expect((await instanceOf(job.id)).output).toEqual({ jobId: job.id, state: 'cancelled' });
    expect(await getJobById(db, job.id)).toMatchObject({
      state: 'cancelled',
      lastSeq: atCancel.row.lastSeq,
    });
    expect((await callsForJob(db, job.id)).length).toBe(atCancel.ledger);
    const calls = seenByProvider.filter((s) => s.jobId === job.id);
    // Every request that reached the provider had its ledger row first; none left after the
    // cancel except one whose row was written before it (at most the two units in flight).
    for (const c of calls) expect(c.ledger).toEqual(['pending']);
    expect(calls.filter((c) => c.at > cancelledAt).length).toBeLessThanOrEqual(2);
    expect(calls.length).toBeLessThan(units);
  }, 120_000);

  it('a cancel stops a run with no provider call too: its next fenced write ends it, nothing stored', async () => {
    const job = await client.submit('demo.summarize', { text: sentences(16) });
    const db = ctx().database.db;
    await waitFor(async () => (await listEvents(db, job.id)).some((e) => e.type === 'unit_done'), {
      timeoutMs: 60_000,
      intervalMs: 50,
      message: 'no unit finished',
    });
    await job.cancel();
    const atCancel = (await getJobById(db, job.id))!;
    await waitFor(async () => (await instanceOf(job.id)).status === 'complete', {
      timeoutMs: 60_000,
      intervalMs: 200,
      message: 'the instance did not end',
    });
    // The run knows it was cancelled (a write taken as stored would have run on to `succeeded`).
    expect((await instanceOf(job.id)).output).toEqual({ jobId: job.id, state: 'cancelled' });
    expect(await getJobById(db, job.id)).toMatchObject({
      state: 'cancelled',
      lastSeq: atCancel.lastSeq,
    });
  }, 120_000);
});
