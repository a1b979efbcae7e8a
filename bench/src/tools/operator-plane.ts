// Dev tool: the operator plane on PostgreSQL at size. Fills one database (the machine's server)
// with <jobs> jobs over 20 tenants — each with a tag and a customer in its metadata, 1 % tagged
// `outage` — plus <bulk> dead-lettered jobs of tenant t0 tagged `outage-bulk`, then measures:
//
//   search   a page of 20 by tag, by metadata key/value, by tag + state, and by error text (no
//            index), each 30 times: median and p99 ms, and the plan PostgreSQL chose
//   bulk     one `bulk.start` requeue of the <bulk> jobs through a real gateway (HTTP, default
//            batch size and pause), its wall time, while 4 readers of ANOTHER tenant call
//            `jobs.get` and `jobs.search` over HTTP in a loop: their p50/p99 before (idle) and
//            during the operation
//
//   npx tsx --conditions=@sluice/source src/tools/operator-plane.ts [jobs] [bulk]
//
// Not a test: the figures go to bench/results/<date>-operator-plane.json and the commit.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompiledQuery } from 'kysely';
import { defineJob, defineJobs } from '@sluice/contracts';
import { createEmbeddedDispatcher, createGateway, serve } from '@sluice/gateway';
import {
  compileSearch,
  createApiKey,
  createLocalBlobStore,
  migrate,
  openDatabase,
  searchJobs,
  type JobSearch,
} from '@sluice/storage';
import { createPgDatabase } from '@sluice/testkit';
import { z } from 'zod';

const [jobsArg = '100000', bulkArg = '10000'] = process.argv.slice(2);
const JOBS = Number(jobsArg);
const BULK = Number(bulkArg);
const jobs = defineJobs(
  defineJob({
    kind: 'bench.job',
    versions: { current: 'v1' },
    input: z.object({ i: z.number() }),
    output: z.unknown(),
  }),
);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0) * 100) / 100;
};

async function main() {
  const pg = await createPgDatabase({ prefix: 'sluice_opbench' });
  const database = openDatabase({ url: pg.url, poolSize: 10 });
  await migrate(database);
  const raw = (text: string) => database.db.executeQuery(CompiledQuery.raw(text));
  const t0 = Date.now();
  // Spread over a day, newest last; dead-lettered bulk jobs interleaved among tenant t0's.
  const at = (g: string, n: number) =>
    `to_char(timestamptz '2026-12-01T00:00:00Z' + (${g}::float8 / ${n}) * interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  await raw(`set sluice.notify = 'off'`);
  await raw(`insert into jobs (id, tenant_id, kind, version, state, input, input_hash, file_ids,
      attempts, max_attempts, epoch, last_seq, created_at, updated_at, finished_at, reason, error, tags, metadata)
    select 'v1-a' || translate(lpad(g::text, 25, '0'), '0123456789', 'abcdefghij'), 't' || (g % 20), 'bench.job', 'v1',
      case when g % 3 = 0 then 'failed' else 'succeeded' end, '{"i": 1}', md5(g::text), '[]', 1, 3, 1, 3,
      ${at('g', JOBS)}, ${at('g', JOBS)}, ${at('g', JOBS)},
      case when g % 3 = 0 then 'PROVIDER_TIMEOUT' end,
      case when g % 3 = 0 then jsonb_build_object('kind', 'unknown', 'message', 'upstream timed out after ' || (g % 97) || ' s') end,
      case when g % 100 = 0 then '["outage", "eu"]'::jsonb else jsonb_build_array('batch-' || (g % 50)) end,
      jsonb_build_object('customer', 'c' || (g % 1000), 'plan', g % 5)
    from generate_series(1, ${JOBS}) g`);
  await raw(`insert into jobs (id, tenant_id, kind, version, state, input, input_hash, file_ids,
      attempts, max_attempts, epoch, last_seq, created_at, updated_at, reason, tags, metadata)
    select 'v1-b' || translate(lpad(g::text, 25, '0'), '0123456789', 'abcdefghij'), 't0', 'bench.job', 'v1', 'dead_lettered', '{"i": 1}',
      md5(g::text), '[]', 3, 3, 3, 3, ${at('g', BULK)}, ${at('g', BULK)}, 'MAX_ATTEMPTS',
      '["outage-bulk"]'::jsonb, '{"customer": "c1"}'::jsonb
    from generate_series(1, ${BULK}) g`);
  await raw(`insert into job_events (job_id, tenant_id, kind, seq, seq_end, type, payload, created_at)
    select id, tenant_id, kind, 1, 3, 'state', '[]'::jsonb, created_at from jobs`);
  await raw('vacuum analyze');
  const fillSeconds = (Date.now() - t0) / 1000;

  const searches: Record<string, JobSearch> = {
    'tag (t3, outage)': { tenantId: 't3', tags: ['outage'] },
    'metadata (t3, customer=c3)': { tenantId: 't3', metadata: [{ key: 'customer', value: 'c3' }] },
    'tag + state (t3, batch-3, failed)': { tenantId: 't3', tags: ['batch-3'], states: ['failed'] },
    'error text (t3, "timed out after 42")': { tenantId: 't3', errorText: 'timed out after 42' },
    'kind + state, no label (t3)': { tenantId: 't3', kind: 'bench.job', states: ['failed'] },
  };
  const search: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(searches)) {
    const times: number[] = [];
    let found = 0;
    for (let i = 0; i < 30; i++) {
      const s = performance.now();
      found = (await searchJobs(database.db, f, { limit: 20 })).items.length;
      times.push(performance.now() - s);
    }
    const q = compileSearch(database.db, f, 20);
    const plan = await database.db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain (analyze, costs off, timing off, summary off) ${q.sql}`, [
        ...q.parameters,
      ]),
    );
    search[name] = {
      found,
      medianMs: pct(times, 50),
      p99Ms: pct(times, 99),
      plan: plan.rows.map((r) => r['QUERY PLAN']),
    };
    console.log(name, search[name]);
  }

  // The bulk requeue through a real gateway, with readers of another tenant.
  const blobRoot = mkdtempSync(join(tmpdir(), 'sluice-opbench-'));
  const gateway = createGateway({
    jobs,
    database,
    blobs: createLocalBlobStore(blobRoot),
    runtime: createEmbeddedDispatcher(database),
    logger: { warn() {}, error() {} },
    limits: { keyRate: { perSecond: 1e6, burst: 1e6 }, tenantRate: { perSecond: 1e6, burst: 1e6 } },
  });
  const server = await serve(gateway, { port: 0 });
  const operator = await createApiKey(database.db, 't0', { scopes: ['jobs:manage', 'jobs:read'] });
  const reader = await createApiKey(database.db, 't5', { scopes: ['jobs:read'] });
  // Job ids are base32: digits written as letters (g = 5 is tenant t5's first job).
  const readerJob = 'v1-a' + 'f'.padStart(25, 'a');
  const call = async (key: string, path: string, input: unknown, method = 'GET') => {
    const url =
      method === 'GET'
        ? `${server.url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`
        : `${server.url}/trpc/${path}`;
    const res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(method === 'POST' ? { body: JSON.stringify(input) } : {}),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { result: { data: unknown } }).result.data;
  };
  const reads = async (untilDone: () => boolean) => {
    const get: number[] = [];
    const find: number[] = [];
    await Promise.all(
      [0, 1, 2, 3].map(async (r) => {
        while (!untilDone()) {
          const s = performance.now();
          if (r % 2 === 0) {
            await call(reader.key, 'jobs.get', { id: readerJob });
            get.push(performance.now() - s);
          } else {
            await call(reader.key, 'jobs.search', { tags: ['outage'], limit: 20 });
            find.push(performance.now() - s);
          }
        }
      }),
    );
    return {
      get: { n: get.length, p50: pct(get, 50), p99: pct(get, 99) },
      search: { n: find.length, p50: pct(find, 50), p99: pct(find, 99) },
    };
  };
  const idleEnd = Date.now() + 5000;
  const idle = await reads(() => Date.now() > idleEnd);
  console.log('reads idle', idle);

  const preview = (await call(operator.key, 'bulk.preview', {
    action: 'requeue',
    filter: { tags: ['outage-bulk'] },
  })) as { count: number };
  const started = performance.now();
  const op = (await call(
    operator.key,
    'bulk.start',
    { action: 'requeue', filter: { tags: ['outage-bulk'] }, operationKey: 'bench', note: 'bench' },
    'POST',
  )) as { id: string };
  let done = false;
  let final: Record<string, unknown> = {};
  const watcher = (async () => {
    for (;;) {
      final = (await call(operator.key, 'bulk.get', { id: op.id })) as Record<string, unknown>;
      if (final.state !== 'running') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    done = true;
  })();
  const during = await reads(() => done);
  await watcher;
  const bulkSeconds = (performance.now() - started) / 1000;
  console.log('bulk', { preview: preview.count, seconds: bulkSeconds, final });
  console.log('reads during', during);

  await server.close();
  await gateway.close();
  await database.close();
  await pg.drop();
  rmSync(blobRoot, { recursive: true, force: true });

  const out = {
    date: new Date().toISOString(),
    machine: 'shared 2-core VM, PostgreSQL 15 (the machine server), other helpers running',
    jobs: JOBS + BULK,
    fillSeconds,
    search,
    bulk: {
      jobs: BULK,
      preview: preview.count,
      seconds: Math.round(bulkSeconds * 100) / 100,
      jobsPerSecond: Math.round(BULK / bulkSeconds),
      final,
      settings: 'batchSize 200, pauseMs 20 (defaults)',
    },
    otherTenantReads: { idle, during },
  };
  const file = join(
    dirname(fileURLToPath(import.meta.url)),
    '../../results',
    `${new Date().toISOString().slice(0, 10)}-operator-plane.json`,
  );
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log('wrote', file);
}

await main();
