// Retention's figures on the gateway's /metrics: what the passes of this replica removed
// (counters), and what the database holds (gauges, read at the sweeper's pace and cached, never
// per scrape: on SQLite a table's rows and bytes are a pass over its pages). Every replica
// refreshes the gauges on its own timer, whichever of them holds the sweep's lock.
//
//   sluice_table_rows{table}                         rows (PostgreSQL: the live-row estimate)
//   sluice_table_bytes{table}                        heap + indexes (absent where not cheap: D1)
//   sluice_retention_oldest_finished_age_seconds     age of the oldest removable (ended) job
//   sluice_retention_lag_seconds                     how overdue the most overdue job is
//   sluice_retention_removed_jobs_total{state}       and _rows_total{table}, _blobs_total,
//   sluice_retention_removed_bytes_total             _archived_objects_total, _passes_total{outcome}

import type { RetentionPolicy } from '@sluice/contracts';
import {
  retentionOverview,
  type RetentionOverview,
  type RetentionPassResult,
  type SluiceDatabase,
  type TableStats,
} from '@sluice/storage';
import { Counter, Gauge, type Registry } from 'prom-client';

/** The tables whose size the gauges show: everything that grows with jobs. */
export const MEASURED_TABLES = [
  'jobs',
  'job_events',
  'units',
  'provider_calls',
  'asset_owners',
  'assets',
  'files',
  'job_files',
  'outbox',
  'schedules',
  'retention_blobs',
] as const;

export interface RetentionMetrics {
  /** Counts a pass's removals. */
  record(result: RetentionPassResult): void;
  /** Counts a pass that failed. */
  failed(): void;
  /** Reads the table sizes and the overview again. */
  refresh(now?: number): Promise<void>;
}

export function createRetentionMetrics(
  registry: Registry,
  database: SluiceDatabase,
  policy: RetentionPolicy,
): RetentionMetrics {
  const registers = [registry];
  let tables: TableStats[] = [];
  let overview: RetentionOverview | undefined;

  new Gauge({
    name: 'sluice_table_rows',
    help: 'Rows per table (PostgreSQL: the statistics collector’s live-row estimate).',
    labelNames: ['table'],
    registers,
    collect() {
      for (const t of tables) this.set({ table: t.table }, t.rows);
    },
  });
  new Gauge({
    name: 'sluice_table_bytes',
    help: 'Bytes per table with its indexes, where the database tells them cheaply.',
    labelNames: ['table'],
    registers,
    collect() {
      for (const t of tables) if (t.bytes !== undefined) this.set({ table: t.table }, t.bytes);
    },
  });
  new Gauge({
    name: 'sluice_retention_oldest_finished_age_seconds',
    help: 'Age of the oldest ended job retention may remove (held jobs aside).',
    registers,
    collect() {
      if (overview) this.set(overview.oldestAgeMs / 1000);
    },
  });
  new Gauge({
    name: 'sluice_retention_lag_seconds',
    help: 'How long ago the most overdue job should have been removed (0: none is).',
    registers,
    collect() {
      if (overview) this.set(overview.lagMs / 1000);
    },
  });
  const jobs = new Counter({
    name: 'sluice_retention_removed_jobs_total',
    help: 'Jobs removed by retention on this replica, by the state they were in.',
    labelNames: ['state'],
    registers,
  });
  const rows = new Counter({
    name: 'sluice_retention_removed_rows_total',
    help: 'Rows removed by retention on this replica, by table.',
    labelNames: ['table'],
    registers,
  });
  const blobs = new Counter({
    name: 'sluice_retention_removed_blobs_total',
    help: 'Blobs (assets, uploads, staging) deleted by retention on this replica.',
    registers,
  });
  const bytes = new Counter({
    name: 'sluice_retention_removed_bytes_total',
    help: 'Bytes of the blobs retention deleted on this replica (as their rows recorded them).',
    registers,
  });
  const archived = new Counter({
    name: 'sluice_retention_archived_objects_total',
    help: 'JSONL archive objects written before removal.',
    registers,
  });
  const passes = new Counter({
    name: 'sluice_retention_passes_total',
    help: 'Retention passes run on this replica: complete, partial (more left), failed.',
    labelNames: ['outcome'],
    registers,
  });

  return {
    record(result) {
      for (const [state, n] of Object.entries(result.byState)) jobs.inc({ state }, n);
      for (const [table, n] of Object.entries(result.rows)) rows.inc({ table }, n);
      blobs.inc(result.blobs);
      bytes.inc(result.bytes);
      archived.inc(result.archived.length);
      passes.inc({ outcome: result.complete ? 'complete' : 'partial' });
    },
    failed() {
      passes.inc({ outcome: 'failed' });
    },
    async refresh(now = Date.now()) {
      tables = await database.dialect.tableStats(database.db, MEASURED_TABLES);
      overview = await retentionOverview(database.db, policy, now);
    },
  };
}
