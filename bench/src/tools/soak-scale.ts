// The scale run (not part of `npm test` or `npm run bench`): a deployment's shape on this machine,
// fed open loop for a long time, to show that nothing grows without bound once retention removes
// what it should. A private PostgreSQL cluster (pg_stat_statements loaded) and a private
// redis-server on free ports, 2 gateway processes (services/soak-gateway.ts) and 4 worker processes
// (workers/soak-worker.ts) on the Valkey Streams runtime, an open-loop producer through the
// gateways' accept path (soak-producer.ts), a handler that sleeps 1–5 ms.
//
//   npm run soak:scale -w @sluice/bench -- [--rate 800] [--jobs 1000000] [--every 50000]
//     [--retention-min 10] [--sweep-every-s 60] [--workers 4] [--gateways 2] [--max-seconds N]
//
// Retention: succeeded jobs are kept 10 minutes. The settings accept any positive duration, but
// the sweep starts every `everyMs` (at least 1 s; default 5 min) and removes at most
// maxBatches × batchSize jobs per sweep (default 200 × 500 = 100,000, with a 200 ms pause between
// batches): at the defaults that is 100,000 per 5 minutes, 333 jobs/s, below this run's rate, so
// the run sweeps every 60 s (up to 1,667 jobs/s) to let the table reach a plateau.
//
// Every `--every` accepted jobs one row is printed and kept (soak-report.ts). At the end: the
// flatness check over the rows after the first retention window plus one sweep, and the audit:
// every accepted id settled as succeeded exactly once (the workers report each settled id), none
// settled any other way, no job left unfinished in the database, the billing ledger empty (no-op
// jobs call no provider). Output: stdout, bench/results/<date>-soak-scale.{json,md}.
// SIGINT/SIGTERM or --max-seconds stop the producer, take a last row and write what was measured.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Redis } from 'iovalkey';
import pg from 'pg';
import { createApiKey, migrate, openDatabase } from '@sluice/storage';
import { startRedisServer } from '@sluice/testkit';
import { BENCH_TENANT } from '../sluice/bench-job.js';
import { startPrivatePostgres } from './private-postgres.js';
import { ACCEPTED, auditRun } from './soak-audit.js';
import { parseSoakOptions } from './soak-options.js';
import { soakChildren } from './soak-processes.js';
import { createOpenLoopProducer } from './soak-producer.js';
import { flatness, markdown, rowLine, type SoakRow } from './soak-report.js';
import * as S from './soak-sample.js';

const opt = parseSoakOptions(process.argv.slice(2));
const retentionMs = Math.round(opt['retention-min'] * 60_000);
const log = (text: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${text}`);

const cluster = await startPrivatePostgres({ shared_preload_libraries: 'pg_stat_statements' });
const redisServer = await startRedisServer();
const children = soakChildren();
let admin: pg.Client | undefined;
let redis: Redis | undefined;
async function cleanup(): Promise<void> {
  await children.stopAll();
  await admin?.end().catch(() => {});
  redis?.disconnect();
  await redisServer.stop().catch(() => {});
  await cluster.stop();
}

const rows: SoakRow[] = [];
// id → times settled as succeeded, plus ACCEPTED once the producer saw the gateway accept it (a
// worker may settle a job before its submit's answer is read).
const seen = new Map<string, number>();
const audit = { settledOther: [] as string[], starts: 0 };
let settledCount = 0;
let d2s: number[] = [];
let s2s: number[] = [];
try {
  const pgUrl = await cluster.createDatabase('soak');
  admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query('create extension pg_stat_statements');
  const database = openDatabase({ url: pgUrl, poolSize: 2 });
  await migrate(database);
  const { key } = await createApiKey(database.db, BENCH_TENANT, 'soak');
  const scraper = await createApiKey(database.db, BENCH_TENANT, {
    label: 'soak-metrics',
    scopes: ['metrics:read'],
  });
  await database.close();
  redis = new Redis(redisServer.url);
  redis.on('error', () => undefined); // a lost connection shows as a failed sample

  const retention = {
    default: { succeeded: retentionMs },
    everyMs: opt['sweep-every-s'] * 1000,
    ...(opt['sweep-batch'] === undefined ? {} : { batchSize: opt['sweep-batch'] }),
    ...(opt['sweep-pause-ms'] === undefined ? {} : { pauseMs: opt['sweep-pause-ms'] }),
  };
  const gateways = await Promise.all(
    Array.from({ length: opt.gateways }, (_, index) =>
      children.spawn(new URL('../services/soak-gateway.ts', import.meta.url), {
        SOAK_GATEWAY: JSON.stringify({ redisUrl: redisServer.url, pgUrl, index, retention }),
      }),
    ),
  );
  const workers = await Promise.all(
    Array.from({ length: opt.workers }, (_, index) =>
      children.spawn(new URL('../workers/soak-worker.ts', import.meta.url), {
        SOAK_WORKER: JSON.stringify({
          redisUrl: redisServer.url,
          pgUrl,
          poolSize: 5,
          concurrency: opt.concurrency,
          index,
          handlerMinMs: 1,
          handlerMaxMs: 5,
        }),
      }),
    ),
  );
  for (const { child } of workers)
    child.on('message', (m: Record<string, unknown>) => {
      if (m.type !== 'progress') return;
      for (const id of m.settled as string[]) seen.set(id, (seen.get(id) ?? 0) + 1);
      settledCount += (m.settled as string[]).length;
      audit.settledOther.push(...(m.other as string[]));
      audit.starts += m.starts as number;
      d2s.push(...(m.dispatchToStart as number[]));
      s2s.push(...(m.submitToStart as number[]));
    });
  log(
    `${opt.gateways} gateways, ${opt.workers} workers up; producing ${opt.jobs} at ${opt.rate}/s`,
  );

  const pmPid = S.postmasterPid(cluster.dataDir);
  const pids: Record<string, { pid: number; cluster?: boolean }> = {
    postgres: { pid: pmPid, cluster: true },
    valkey: { pid: redisServer.pid },
    producer: { pid: process.pid },
  };
  gateways.forEach(({ child }, i) => (pids[`gateway${i}`] = { pid: child.pid! }));
  workers.forEach(({ child }, i) => (pids[`worker${i}`] = { pid: child.pid! }));
  const start = await S.samplePg(admin, true);
  const t0 = Date.now();
  let last = { at: t0, settled: 0, wal: 0, cpu: {} as Record<string, number> };
  for (const [k, p] of Object.entries(pids)) last.cpu[k] = S.sampleProc(p.pid, p.cluster).cpuMs;

  const producer = createOpenLoopProducer({
    gatewayUrls: gateways.map((g) => g.ready.url as string),
    apiKey: key,
    rate: opt.rate,
    total: opt.jobs,
    onAccepted(ids) {
      for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + ACCEPTED);
    },
  });

  /**
   * The retention figures the gateways export (a scrape with a metrics:read key): removed jobs
   * and passes summed over the replicas, the lag and the oldest finished job's age at most.
   */
  async function retentionFigures(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const g of gateways) {
      const res = await fetch(`${g.ready.url as string}/metrics`, {
        headers: { authorization: `Bearer ${scraper.key}` },
      }).catch(() => undefined);
      const text = res?.ok ? await res.text() : '';
      for (const m of text.matchAll(/^(sluice_retention_[a-z_]+)(?:\{[^}]*\})? ([\d.e+-]+)$/gm)) {
        const [name, value] = [m[1]!, Number(m[2])];
        out[name] = name.endsWith('_total')
          ? (out[name] ?? 0) + value
          : Math.max(out[name] ?? 0, value);
      }
    }
    return out;
  }

  async function takeRow(): Promise<SoakRow> {
    const now = Date.now();
    const pgs = await S.samplePg(admin!, true);
    const wal = await S.walBytesBetween(admin!, start.walLsn, pgs.walLsn);
    const settled = settledCount;
    const window = settled - last.settled;
    const seconds = (now - last.at) / 1000;
    const procs: SoakRow['procs'] = {};
    const cpu: Record<string, number> = {};
    for (const [k, p] of Object.entries(pids)) {
      const s = S.sampleProc(p.pid, p.cluster);
      cpu[k] = s.cpuMs;
      const used = s.cpuMs - (last.cpu[k] ?? s.cpuMs);
      procs[k] = {
        cpuPct: used / 10 / seconds || 0,
        cpuMsPer1k: window > 0 ? (used * 1000) / window : NaN,
        rssMiB: s.rssMiB,
      };
    }
    const group = (name: string) => {
      const st = pgs.groups[name];
      return st && { calls: st.calls, meanMs: st.meanMs, maxMs: st.maxMs };
    };
    const a = [...d2s].sort((x, y) => x - y);
    const b = [...s2s].sort((x, y) => x - y);
    d2s = [];
    s2s = [];
    const row: SoakRow = {
      n: rows.length + 1,
      at: new Date(now).toISOString(),
      elapsedS: (now - t0) / 1000,
      load1: loadavg()[0]!,
      accepted: producer.stats.accepted,
      settled,
      backlog: producer.stats.accepted - settled,
      producerLag: producer.stats.lag,
      refused: producer.stats.refused,
      settledPerSec: window / seconds,
      walBytesSinceStart: wal,
      walBytesPerJob: window > 0 ? (wal - last.wal) / window : NaN,
      tables: pgs.tables,
      states: pgs.states,
      accept: group('accept'),
      claim: group('claim'),
      write: group('write'),
      retention: group('retention'),
      statements: pgs.statements,
      dispatchToStart: { p50: S.percentile(a, 50), p99: S.percentile(a, 99), n: a.length },
      submitToStart: { p50: S.percentile(b, 50), p99: S.percentile(b, 99), n: b.length },
      redis: await S.sampleRedis(redis!),
      gatewayRetention: await retentionFigures(),
      procs,
    };
    last = { at: now, settled, wal, cpu };
    rows.push(row);
    console.log(rowLine(row));
    return row;
  }

  let stopAsked = false;
  const ask = () => {
    if (!stopAsked) log('stop asked: last row, then the audit');
    stopAsked = true;
  };
  process.on('SIGINT', ask);
  process.on('SIGTERM', ask);
  producer.start();
  let nextRow = opt.every;
  let producing = true;
  void producer.done.then(() => (producing = false));
  while (producing && !stopAsked) {
    await new Promise((r) => setTimeout(r, 500));
    if ((Date.now() - t0) / 1000 >= opt['max-seconds']) ask();
    if (producer.stats.accepted >= nextRow) {
      nextRow += opt.every;
      await takeRow();
    }
  }
  await producer.stop();
  log(`producer stopped at ${producer.stats.accepted} accepted; waiting for the backlog`);
  const drainUntil = Date.now() + opt['drain-wait-s'] * 1000;
  while (
    settledCount + audit.settledOther.length < producer.stats.accepted &&
    Date.now() < drainUntil
  )
    await new Promise((r) => setTimeout(r, 500));
  await new Promise((r) => setTimeout(r, 1500)); // the workers' last progress messages
  const final = await takeRow();

  const afterS = (retentionMs + opt['sweep-every-s'] * 1000) / 1000;
  const flat = flatness(rows, afterS);
  const result = {
    accepted: producer.stats.accepted,
    refused: producer.stats.refused,
    refusedSamples: producer.stats.errorSamples,
    settled: settledCount,
    handlerStarts: audit.starts,
    ...(await auditRun({
      admin,
      seen,
      states: final.states,
      settledOtherwise: audit.settledOther.length,
      stoppedEarly: stopAsked,
    })),
  };
  console.log(JSON.stringify(result));
  for (const f of flat)
    console.log(
      `flat ${f.within10 ? 'ok ' : 'NO '} ${f.metric}: ${f.min.toFixed(1)}..${f.max.toFixed(1)} ` +
        `(median ${f.median.toFixed(1)}, worst ${f.worstPct.toFixed(1)} %)`,
    );
  const date = new Date().toISOString().slice(0, 10);
  const dir = new URL('../../results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const setup = [
    `${new Date(t0).toISOString()} → ${new Date().toISOString()}; options ${JSON.stringify(opt)}`,
    `private PostgreSQL 15 (initdb defaults + pg_stat_statements), private redis-server (no persistence)`,
    `${opt.gateways} gateway processes (Valkey Streams runtime, product defaults except retention: succeeded ${opt['retention-min']} min, sweep every ${opt['sweep-every-s']} s)`,
    `${opt.workers} worker processes × concurrency ${opt.concurrency}, handler sleeps 1–5 ms`,
    `machine: 2 shared cores; load1 ${Math.min(...rows.map((r) => r.load1)).toFixed(1)}–${Math.max(...rows.map((r) => r.load1)).toFixed(1)} over the rows`,
  ];
  writeFileSync(
    new URL(`${date}-${opt.label}.json`, dir),
    JSON.stringify(
      { options: opt, setup, rows, flatness: flat, flatAfterS: afterS, audit: result },
      null,
      1,
    ),
  );
  writeFileSync(
    new URL(`${date}-${opt.label}.md`, dir),
    markdown({ title: `Scale run ${date}`, setup, rows, flat, afterS, audit: result }),
  );
  log(`wrote bench/results/${date}-${opt.label}.{json,md}`);
} finally {
  await cleanup();
}
