// Dev tool: what one reconciler pass (packages/gateway/src/reconciler) costs against a large job
// table, and whether its page queries are bounded by an index, independent of the terminal rows.
// Two databases on one private PostgreSQL cluster: `small` holds only the <open> queued jobs,
// `large` the same number of queued jobs plus <terminal> succeeded ones (bulk-filled as the accept
// path writes them, then moved to succeeded and vacuumed). For each database:
//   - the plans (EXPLAIN ANALYZE, BUFFERS) of the two page queries, as kysely compiles them from
//     the product's own functions (nonTerminalJobsPage: the loss scan; forgottenJobsPage: the
//     safety sweep, here with nothing forgotten: the common case);
//   - one full loss scan, page after page of 500, database only (no dispatch);
//   - reconciler passes timed end to end (`createReconciler` + the Streams dispatcher on a private
//     redis-server): a loss pass (the detector says the transport lost its data, so every
//     non-terminal job is dispatched again), a sweep pass, and an idle pass (outbox only).
//
//   npx tsx src/tools/reconciler-scan.ts [terminal=1000000] [open=10000] [repeats=3]
// Prints JSON lines and writes bench/results/<date>-reconciler-scan.json. Not a test.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { createReconciler } from '@sluice/gateway';
import { createStreamsGatewayRuntime } from '@sluice/runtime-valkey-streams';
import {
  forgottenJobsPage,
  isoNow,
  migrate,
  nonTerminalJobsPage,
  openDatabase,
  type Db,
  type SluiceDatabase,
} from '@sluice/storage';
import { startRedisServer } from '@sluice/testkit';
import { fillQueued } from '../sluice/bulk-fill.js';
import { startPrivatePostgres } from './private-postgres.js';

const [terminalArg = '1000000', openArg = '10000', repeatsArg = '3'] = process.argv.slice(2);
const TERMINAL = Number(terminalArg);
const OPEN = Number(openArg);
const REPEATS = Number(repeatsArg);
const PAGE = 500;
const log = (o: Record<string, unknown>) => console.log(JSON.stringify(o));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** The SQL and parameters kysely sends for one call of a storage function. */
async function compiled(pool: pg.Pool, call: (db: Db) => Promise<unknown>): Promise<CompiledQuery> {
  let query: CompiledQuery | undefined;
  const db = new Kysely<never>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      query ??= event.query;
    },
  }) as unknown as Db;
  await call(db);
  if (!query) throw new Error('no query captured');
  return query;
}

async function explain(c: pg.Client, q: CompiledQuery): Promise<string[]> {
  const r = await c.query(`explain (analyze, buffers) ${q.sql}`, [...q.parameters]);
  return r.rows.map((row: Record<string, string>) => row['QUERY PLAN']!);
}

async function fill(database: SluiceDatabase, url: string, terminal: number, c: pg.Client) {
  const t0 = Date.now();
  if (terminal > 0) {
    await fillQueued({ url, database }, terminal, { from: OPEN });
    const at = isoNow();
    await c.query(
      `update jobs set state = 'succeeded', finished_at = $1, updated_at = $1, lease_until = null`,
      [at],
    );
  }
  await fillQueued({ url, database }, OPEN, { from: 0 });
  await c.query('vacuum analyze');
  return Date.now() - t0;
}

async function measure(
  name: string,
  terminal: number,
  cluster: Awaited<ReturnType<typeof startPrivatePostgres>>,
  redisUrl: string,
) {
  const url = await cluster.createDatabase(name);
  const database = openDatabase({ url, poolSize: 4 });
  await migrate(database);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const fillMs = await fill(database, url, terminal, c);
  const states = (await c.query('select state, count(*)::int as n from jobs group by state')).rows;
  const size = (
    await c.query(
      `select pg_total_relation_size('jobs') as total, pg_relation_size('jobs') as heap,
         pg_indexes_size('jobs') as idx`,
    )
  ).rows[0];
  const indexes = (
    await c.query(`select indexname, indexdef from pg_indexes where tablename = 'jobs'`)
  ).rows.map((r: { indexdef: string }) => r.indexdef);
  log({ name, fillMs, states, size });

  const pool = database.pgPool!;
  const lossQ = await compiled(pool, (db) => nonTerminalJobsPage(db, '', PAGE));
  const now = Date.now();
  const sweepQ = await compiled(pool, (db) =>
    forgottenJobsPage(db, isoNow(now - 5 * 60_000), isoNow(now - 2 * 60_000), '', PAGE),
  );
  // The middle of the id range too: a later page starts from an id the previous page ended at.
  const mid = (
    await c.query('select id from jobs where state = $1 order by id offset $2 limit 1', [
      'queued',
      Math.floor(OPEN / 2),
    ])
  ).rows[0]?.id as string;
  const lossMidQ = await compiled(pool, (db) => nonTerminalJobsPage(db, mid, PAGE));
  const plans = {
    lossFirstPage: await explain(c, lossQ),
    lossMiddlePage: await explain(c, lossMidQ),
    sweepFirstPage: await explain(c, sweepQ),
  };

  // A full loss scan, database only.
  const scans: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const t = performance.now();
    let after = '';
    let rows = 0;
    for (;;) {
      const page = await nonTerminalJobsPage(database.db, after, PAGE);
      rows += page.length;
      if (page.length < PAGE) break;
      after = page[page.length - 1]!.id;
    }
    scans.push(performance.now() - t);
    if (rows !== OPEN) throw new Error(`loss scan read ${rows} jobs, expected ${OPEN}`);
  }

  // Whole passes through the real reconciler and the Streams dispatcher.
  const rt = createStreamsGatewayRuntime({ redisUrl, database, reconciler: false });
  const pass = async (opts: { lost: boolean; sweep: boolean }) => {
    const r = createReconciler({
      database,
      runtime: rt.dispatcher,
      loss: { lost: async () => opts.lost, mark: async () => {} },
      // A fresh reconciler's first tick sweeps unless the period is out of reach.
      sweepEveryMs: opts.sweep ? 0 : Number.MAX_SAFE_INTEGER,
    });
    const t = performance.now();
    await r.tick();
    const ms = performance.now() - t;
    const stats = { ...r.stats };
    await r.close();
    if (stats.errors > 0) throw new Error(`reconciler pass failed: ${JSON.stringify(stats)}`);
    return { ms, stats };
  };
  const passes: Record<string, { ms: number[]; stats: unknown }> = {};
  for (const [label, o] of [
    ['loss', { lost: true, sweep: false }],
    ['sweep', { lost: false, sweep: true }],
    ['idle', { lost: false, sweep: false }],
  ] as const) {
    const ms: number[] = [];
    let stats: unknown;
    for (let i = 0; i < REPEATS; i++) {
      const p = await pass(o);
      ms.push(p.ms);
      stats = p.stats;
    }
    passes[label] = { ms, stats };
  }
  await rt.close();
  await c.end();
  await database.close();
  const result = {
    name,
    terminal,
    open: OPEN,
    load1: loadavg()[0],
    tableBytes: size,
    indexes,
    lossScanMs: { median: median(scans), all: scans },
    passesMs: Object.fromEntries(
      Object.entries(passes).map(([k, v]) => [
        k,
        { median: median(v.ms), all: v.ms, stats: v.stats },
      ]),
    ),
    queries: { loss: lossQ.sql, sweep: sweepQ.sql },
    plans,
  };
  log({ name, lossScanMs: result.lossScanMs, passesMs: result.passesMs });
  for (const [k, lines] of Object.entries(plans))
    console.log(`-- ${name} ${k}\n${lines.join('\n')}`);
  return result;
}

const cluster = await startPrivatePostgres({ max_wal_size: '4GB' });
const redis = await startRedisServer();
try {
  const small = await measure('scan_small', 0, cluster, redis.url);
  await redis.restart(); // empty streams again for the second database
  const large = await measure('scan_large', TERMINAL, cluster, redis.url);
  const date = new Date().toISOString().slice(0, 10);
  const dir = new URL('../../results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    new URL(`${date}-reconciler-scan.json`, dir),
    JSON.stringify({ terminal: TERMINAL, open: OPEN, pageSize: PAGE, small, large }, null, 1),
  );
  console.error(`wrote bench/results/${date}-reconciler-scan.json`);
} finally {
  await redis.stop().catch(() => {});
  await cluster.stop();
}
