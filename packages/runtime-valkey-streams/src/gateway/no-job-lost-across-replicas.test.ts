// Catches jobs lost or watchers left hanging when the Streams runtime runs as separate processes:
// two gateways and three workers on one database and one private redis-server. Every job is
// submitted through one gateway and watched through the other, so its events must cross replicas
// (the events stream); then Redis is restarted without persistence mid-run, so the streams, the
// group, the pending lists and unread events are gone and only the database knows what is left
// (the reconciler's data-loss re-dispatch and the tailers' resync must cover it).

import { isTerminalState } from '@sluice/contracts';
import { createApiKey, eventsOfRow, type DialectName, type SluiceDatabase } from '@sluice/storage';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '@sluice/storage/testing';
import {
  sleep,
  spawnNode,
  startRedisServer,
  waitFor,
  type ChildHandle,
  type RedisServer,
} from '@sluice/testkit';
import {
  createTRPCClient,
  createWSClient,
  httpBatchLink,
  wsLink,
  type TRPCClient,
} from '@trpc/client';
import { Redis } from 'iovalkey';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AppRouter } from '@sluice/gateway';
import type { XpJobs } from '@sluice/gateway/conformance';

type Client = TRPCClient<AppRouter<XpJobs>>;
const gatewayEntry = new URL('../testing/gateway-child.ts', import.meta.url);
// The worker package's own test child (spawned by path: the gateway never imports the worker).
const workerEntry = new URL('../testing/streams-worker-child.ts', import.meta.url);
// One dialect: five processes on one SQLite file mostly measure its write lock (set
// SLUICE_XP_DIALECT=sqlite to run it there anyway).
const dialect: DialectName =
  process.env.SLUICE_XP_DIALECT === 'sqlite' || !TEST_DIALECTS.includes('postgres')
    ? 'sqlite'
    : 'postgres';
const STREAM = 'sluice:jobs:{xp.work:v1}';

let redis: RedisServer;
let db: TestDatabase;
let key: string;
let adminKey: string;
let gateways: { child: ChildHandle; url: string; http: Client; ws: Client; close(): void }[] = [];
let workers: { child: ChildHandle; url: string }[] = [];
let probe: Redis;

beforeAll(async () => {
  [redis, db] = await Promise.all([startRedisServer(), createTestDatabase(dialect)]);
  key = (await createApiKey(db.database.db, 'acme')).key;
  adminKey = (await createApiKey(db.database.db, 'acme', { scopes: ['admin'] })).key;
  probe = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  probe.on('error', () => {});
  const base = { DB_URL: db.url, REDIS_URL: redis.url };
  const spawned = await Promise.all(
    ['gw-1', 'gw-2'].map((id) =>
      spawnNode(gatewayEntry, { env: { ...base, GATEWAY_ID: id }, readyLine: /READY (\S+)/ }),
    ),
  );
  const urlOf = async (c: ChildHandle) => (await c.waitForLine(/READY (\S+)/))[1] as string;
  gateways = await Promise.all(
    spawned.map(async (child) => {
      const url = await urlOf(child);
      const headers = { authorization: `Bearer ${key}` };
      const wsClient = createWSClient({
        url: `${url.replace(/^http/, 'ws')}/ws`,
        WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
        connectionParams: () => ({ apiKey: key }),
        retryDelayMs: () => 100,
      });
      return {
        child,
        url,
        http: createTRPCClient<AppRouter<XpJobs>>({
          links: [httpBatchLink({ url: `${url}/trpc`, headers, maxItems: 50 })],
        }),
        ws: createTRPCClient<AppRouter<XpJobs>>({ links: [wsLink({ client: wsClient })] }),
        close: () => void wsClient.close(),
      };
    }),
  );
  workers = await spawnWorkers({ UNITS: '2', UNIT_MS: '10', CONCURRENCY: '32' });
}, 90_000);

/** Three worker processes (the worker package's test child) with these job timings. */
async function spawnWorkers(timing: Record<string, string>) {
  const env = {
    DB_URL: db.url,
    REDIS_URL: redis.url,
    LEASE_MS: '3000',
    BLOCK_MS: '500',
    ...timing,
  };
  return Promise.all(
    ['w-1', 'w-2', 'w-3'].map(async (id) => {
      const child = await spawnNode(workerEntry, {
        env: { ...env, WORKER_ID: id },
        readyLine: /READY (\S+)/,
      });
      return { child, url: (await child.waitForLine(/READY (\S+)/))[1] as string };
    }),
  );
}

afterAll(async () => {
  for (const g of gateways) g.close();
  await Promise.all([...gateways, ...workers].map((p) => p.child.stop()));
  probe?.disconnect();
  await redis?.stop();
  await db?.dispose();
});

/** Submits `n` jobs alternately through both gateways and watches each through the other one. */
async function submitAndWatch(n: number, from: number) {
  const terminal = new Map<string, { state: string; at: number; events: number }>();
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 100 }, async (_, lane) => {
      const g = lane % 2;
      while (next < n) {
        const i = from + next++;
        const { id } = await (gateways[g] as (typeof gateways)[0]).http.jobs.submit.mutate({
          kind: 'xp.work',
          input: { n: i },
        });
        ids.push(id);
        let events = 0;
        const sub = (gateways[1 - g] as (typeof gateways)[0]).ws.jobs.watch.subscribe(
          { id },
          {
            onData: ({ data }) => {
              events++;
              if ('to' in data && data.to && isTerminalState(data.to)) {
                terminal.set(id, { state: data.to, at: Date.now(), events });
                sub.unsubscribe();
              }
            },
          },
        );
      }
    }),
  );
  return { ids, terminal };
}

const count = async (database: SluiceDatabase, sql: 'succeeded' | 'attempts>1', ids: string[]) => {
  let q = database.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('id', 'in', ids);
  q = sql === 'succeeded' ? q.where('state', '=', 'succeeded') : q.where('attempts', '>', 1);
  return Number((await q.executeTakeFirstOrThrow()).n);
};

/** Terminal state events stored per job (1 each: a job ends exactly once). */
async function terminalEventsPerJob(ids: string[]): Promise<number[]> {
  const rows = await db.database.db
    .selectFrom('job_events')
    .select(['job_id', 'payload', 'seq_end'])
    .where('job_id', 'in', ids)
    .execute();
  const by = new Map<string, number>();
  // A row holds one event, or a job's events written together (storage event-rows.ts).
  for (const r of rows) {
    for (const e of eventsOfRow(r.payload, r.seq_end)) {
      const to = 'to' in e ? e.to : undefined;
      if (to && isTerminalState(to)) by.set(r.job_id, (by.get(r.job_id) ?? 0) + 1);
    }
  }
  return ids.map((id) => by.get(id) ?? 0);
}

const pending = async () =>
  Number(((await probe.xpending(STREAM, 'sluice-workers')) as unknown[])[0]);
const started = () =>
  workers.reduce((n, w) => n + (w.child.output().match(/^STARTED /gm)?.length ?? 0), 0);
const metricsText = async (url: string) =>
  (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${adminKey}` } })).text();
const metric = async (url: string, name: string) =>
  Number(new RegExp(`^${name} (\\S+)`, 'm').exec(await metricsText(url))?.[1] ?? NaN);

it(
  `two gateways and three workers: 2,000 jobs all succeed, every watcher sees its end, nothing pending [${dialect}]`,
  { timeout: 240_000 },
  async () => {
    const n = 2000;
    const startedBefore = started();
    const t0 = Date.now();
    const { ids, terminal } = await submitAndWatch(n, 0);
    const submittedAt = Date.now();
    await waitFor(() => terminal.size === n, {
      timeoutMs: 180_000,
      intervalMs: 100,
      message: `watchers saw ${terminal.size} of ${n} ends`,
    });
    const lastEnd = Math.max(...[...terminal.values()].map((t) => t.at));
    expect([...terminal.values()].every((t) => t.state === 'succeeded')).toBe(true);
    expect(await count(db.database, 'succeeded', ids)).toBe(n);
    expect(await terminalEventsPerJob(ids)).toEqual(ids.map(() => 1));
    await waitFor(async () => (await pending()) === 0, {
      timeoutMs: 20_000,
      message: 'nothing pending',
    });
    const reruns = await count(db.database, 'attempts>1', ids);
    for (const g of gateways) {
      const text = await metricsText(g.url);
      console.log(
        text
          .split('\n')
          .filter((l) => /^sluice_(events|reconciler|dispatch|outbox)/.test(l))
          .join('\n'),
      );
    }
    console.log(
      `[${dialect}] 2 gateways × 3 workers: ${n} jobs submitted in ${submittedAt - t0} ms (${Math.round((n / (submittedAt - t0)) * 1000)}/s), ` +
        `submit→terminal ${lastEnd - t0} ms (${Math.round((n / (lastEnd - t0)) * 1000)} jobs/s), ` +
        `handler starts ${started() - startedBefore}, jobs re-run ${reruns}, lost ${n - terminal.size}, pending after drain ${await pending()}`,
    );
  },
);

it(
  `a Redis restart without persistence mid-run loses no job; watchers see every end; readiness dips and returns [${dialect}]`,
  { timeout: 240_000 },
  async () => {
    // Slow jobs and few slots: most jobs are still in the stream (or running) at the kill.
    await Promise.all(workers.map((w) => w.child.stop()));
    workers = await spawnWorkers({ UNITS: '2', UNIT_MS: '400', CONCURRENCY: '6' });
    const n = 400;
    const { ids, terminal } = await submitAndWatch(n, 10_000);
    await waitFor(() => terminal.size >= 40, { timeoutMs: 60_000, message: 'some jobs finished' });
    const doneBeforeKill = terminal.size;
    const lossesBefore = await Promise.all(
      gateways.map((g) => metric(g.url, 'sluice_reconciler_losses_total')),
    );
    await redis.kill();
    const killedAt = Date.now();
    const unready = async (url: string) =>
      (await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200;
    await waitFor(
      async () => (await Promise.all(gateways.map((g) => unready(g.url)))).every(Boolean),
      { timeoutMs: 10_000, message: 'gateways unready' },
    );
    const gatewaysUnreadyMs = Date.now() - killedAt;
    await waitFor(
      async () => (await Promise.all(workers.map((w) => unready(w.url)))).every(Boolean),
      { timeoutMs: 15_000, message: 'workers unready' },
    );
    const workersUnreadyMs = Date.now() - killedAt;
    await sleep(500);
    await redis.restart({ persistence: 'none' });
    const backAt = Date.now();
    await waitFor(
      async () => (await Promise.all(gateways.map((g) => unready(g.url)))).every((u) => !u),
      { timeoutMs: 20_000, message: 'gateways ready again' },
    );
    const gatewaysReadyMs = Date.now() - backAt;
    await waitFor(
      async () => (await Promise.all(workers.map((w) => unready(w.url)))).every((u) => !u),
      { timeoutMs: 30_000, message: 'workers ready again' },
    );
    const workersReadyMs = Date.now() - backAt;
    await waitFor(
      async () => {
        const losses = await Promise.all(
          gateways.map((g) => metric(g.url, 'sluice_reconciler_losses_total')),
        );
        return losses.some((l, i) => l > (lossesBefore[i] as number));
      },
      { timeoutMs: 20_000, message: 'the reconciler saw the loss' },
    );
    const detectedMs = Date.now() - backAt;
    await waitFor(() => terminal.size === n, {
      timeoutMs: 120_000,
      intervalMs: 100,
      message: `watchers saw ${terminal.size} of ${n} ends`,
    });
    const recoveredMs = Math.max(...[...terminal.values()].map((t) => t.at)) - backAt;
    const endedAfterBack = [...terminal.values()].filter((t) => t.at > backAt).length;
    expect(await count(db.database, 'succeeded', ids)).toBe(n);
    const perJob = await terminalEventsPerJob(ids);
    expect(perJob).toEqual(ids.map(() => 1));
    await waitFor(async () => (await pending()) === 0, {
      timeoutMs: 20_000,
      message: 'nothing pending',
    });
    console.log(
      `[${dialect}] Redis restart without persistence, ${n} jobs (${doneBeforeKill} done before the kill): ` +
        `gateways unready after ${gatewaysUnreadyMs} ms, workers after ${workersUnreadyMs} ms; after Redis was back: ` +
        `gateways ready in ${gatewaysReadyMs} ms, workers in ${workersReadyMs} ms, loss detected in ≤ ${detectedMs} ms, ` +
        `${endedAfterBack} jobs ended after that, the last ${recoveredMs} ms later; lost ${n - [...terminal.values()].filter((t) => t.state === 'succeeded').length}, ` +
        `duplicate terminal events ${perJob.reduce((s, c) => s + Math.max(0, c - 1), 0)}, re-run ${await count(db.database, 'attempts>1', ids)}`,
    );
  },
);
