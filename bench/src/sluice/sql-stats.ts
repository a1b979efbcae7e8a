// Diagnostics for the profile findings (BENCH_SQL_STATS=<dir>): counts every statement a process
// sends to its database and the time it spends on each, grouped by statement shape, and writes
// the tally to <dir>/sql-<pid>.json when the process closes. better-sqlite3 is timed around the
// synchronous prepare/run/all calls; pg around each query's round trip. Off by default: the
// wrappers cost a little per statement.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';

interface Tally {
  count: number;
  ms: number;
}

const tallies = new Map<string, Tally>();
let prepares: Tally = { count: 0, ms: 0 };

/** A statement's shape: literals and parameter lists collapsed, first 120 characters. */
export function shapeOf(sql: string): string {
  return sql
    .replace(/\s+/g, ' ')
    .replace(/\((?:\s*(?:\?|\$\d+)\s*,?)+\)/g, '(…)')
    .replace(/(?:\(…\)\s*,\s*)+\(…\)/g, '(…)+')
    .replace(/'[^']*'/g, "'…'")
    .trim()
    .slice(0, 120);
}

function add(sql: string, ms: number): void {
  const key = shapeOf(sql);
  const t = tallies.get(key) ?? { count: 0, ms: 0 };
  t.count++;
  t.ms += ms;
  tallies.set(key, t);
}

function patchSqlite(): void {
  const probe = new SQLite(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, unknown>;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate']) {
    const original = statement[method] as (...args: unknown[]) => unknown;
    statement[method] = function (this: { source: string }, ...args: unknown[]) {
      const t0 = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        add(this.source, performance.now() - t0);
      }
    };
  }
  const db = SQLite.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const prepare = db.prepare as (...args: unknown[]) => unknown;
  db.prepare = function (this: unknown, ...args: unknown[]) {
    const t0 = performance.now();
    try {
      return prepare.apply(this, args);
    } finally {
      prepares = { count: prepares.count + 1, ms: prepares.ms + performance.now() - t0 };
    }
  };
}

function patchPg(): void {
  const client = pg.Client.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const query = client.query as (...args: unknown[]) => unknown;
  client.query = function (this: unknown, ...args: unknown[]) {
    const text =
      typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string })?.text ?? '');
    const t0 = performance.now();
    const result = query.apply(this, args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).then(
        () => add(text, performance.now() - t0),
        () => add(text, performance.now() - t0),
      );
    } else add(text, 0);
    return result;
  };
}

export interface SqlStats {
  /** Writes the tally so far to <dir>/sql-<name>.json, per `units` (jobs, requests). */
  write(name: string, units: number): void;
  reset(): void;
}

let installed = false;

/** Installs the wrappers when BENCH_SQL_STATS is set (once per process); otherwise undefined. */
export function installSqlStats(): SqlStats | undefined {
  const dir = process.env.BENCH_SQL_STATS;
  if (!dir) return undefined;
  if (!installed) {
    patchSqlite();
    patchPg();
    installed = true;
  }
  return {
    write(name, units) {
      mkdirSync(dir, { recursive: true });
      const per = Math.max(1, units);
      const rows = [...tallies]
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([sql, t]) => ({ sql, count: t.count, perUnit: t.count / per, ms: t.ms }));
      const statements = rows.reduce((a, r) => a + r.count, 0);
      const summary = { pid: process.pid, units: per, statements, perUnit: statements / per };
      writeFileSync(
        join(dir, `sql-${name}.json`),
        `${JSON.stringify({ ...summary, prepares, rows }, null, 2)}\n`,
      );
    },
    reset() {
      tallies.clear();
      prepares = { count: 0, ms: 0 };
    },
  };
}
