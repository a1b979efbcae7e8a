// Row 5, parent side: Sluice's embedded runtime on SQLite and on PostgreSQL. `prepare` gives the
// run a fresh database (a new SQLite file; the suite's PostgreSQL database truncated), fills N
// queued jobs untimed and refreshes planner statistics; the children (workers/sluice-embedded.ts)
// drain it.
import type { BenchAdapter, BenchServices, PrepareSpec } from '../adapter.js';
import { fillQueued } from './bulk-fill.js';
import { analyze, prepareRunDatabase, type Storage } from './sluice-db.js';
import { embeddedTenantFeed } from './tenant-feed.js';

const WORKER_MODULE = new URL('../workers/sluice-embedded.ts', import.meta.url).href;
/** The product's default pool; 4 × 10 stays inside the 40-connection budget graphile-worker has. */
const PG_POOL_PER_PROCESS = 10;
const CONNECTION_BUDGET = 40;

async function prepare(storage: Storage, services: BenchServices, spec: PrepareSpec) {
  const run = await prepareRunDatabase(storage, services.pg?.url);
  try {
    await fillQueued(run, spec.jobs);
    await analyze(run.database);
  } catch (error) {
    await run.dispose();
    throw error;
  }
  const poolSize = Math.max(
    2,
    Math.min(PG_POOL_PER_PROCESS, Math.floor(CONNECTION_BUDGET / spec.processes)),
  );
  // SQLite: the parent's handle is closed before the children open the file (one handle per
  // process; the parent has nothing left to do in the file).
  if (storage === 'sqlite') await run.close();
  return {
    child: { url: run.url, poolSize },
    cleanup: () => run.dispose(),
  };
}

function embeddedAdapter(storage: Storage): BenchAdapter {
  return {
    id: `sluice-embedded-${storage === 'sqlite' ? 'sqlite' : 'pg'}`,
    label: `Sluice embedded (${storage === 'sqlite' ? 'SQLite' : 'PostgreSQL'})`,
    needs: storage === 'sqlite' ? [] : ['postgres'],
    packages: ['@sluice/worker', '@sluice/storage', storage === 'sqlite' ? 'better-sqlite3' : 'pg'],
    durableWork:
      'The job row is its own queue entry (inserted at accept with one event row), claimed with ' +
      'one UPDATE and finished with ONE fenced UPDATE and ONE job_events row holding running, the ' +
      'unit and the end; a no-op unit that made no provider call stores no checkpoint.',
    queue: {
      consumerModule: WORKER_MODULE,
      prepare: (services, spec) => prepare(storage, services, spec),
      databaseCost: storage === 'postgres',
      tenantFeed: (_services, prepared) => embeddedTenantFeed(String(prepared.child.url)),
    },
  };
}

export const sluiceEmbeddedSqlite = embeddedAdapter('sqlite');
export const sluiceEmbeddedPg = embeddedAdapter('postgres');
