// CPU time per process from /proc/<pid>/stat (utime + stime, every thread of the process, in
// clock ticks: 10 ms resolution on this kernel). A meter tracks groups of pids whose membership may
// grow during a run (PostgreSQL backends come and go), reading each pid at first sight and on every
// sample; a process that started after the meter started counts from zero.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';

function clockTicksPerSecond(): number {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return value > 0 ? value : 100;
  } catch {
    return 100;
  }
}

export const CLK_TCK = clockTicksPerSecond();

export interface ProcStat {
  /** utime + stime of all threads, ms. */
  cpuMs: number;
  /** Process start, in clock ticks since boot. */
  startTicks: number;
}

export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const startTicks = Number(fields[19]);
  return { cpuMs: ((utime + stime) * 1000) / CLK_TCK, startTicks };
}

/**
 * Bytes the process caused to be sent to storage so far (`/proc/<pid>/io` write_bytes, counted
 * when pages are dirtied, all threads); 0 when the process is gone or the kernel does not count.
 */
export function readWriteBytes(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/io`, 'utf8');
    return Number(/^write_bytes:\s*(\d+)/m.exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function uptimeTicks(): number {
  const seconds = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  return seconds * CLK_TCK;
}

interface Tracked {
  group: string;
  base: number;
  last: number;
}

export class CpuMeter {
  private readonly tracked = new Map<number, Tracked>();
  private readonly startedAtTicks = uptimeTicks();

  /** Starts tracking `pid` under `group`; a no-op for a pid already tracked or already gone. */
  track(group: string, pid: number): void {
    if (pid <= 0 || this.tracked.has(pid)) return;
    const stat = readProcStat(pid);
    if (!stat) return;
    const bornDuringRun = stat.startTicks >= this.startedAtTicks;
    this.tracked.set(pid, { group, base: bornDuringRun ? 0 : stat.cpuMs, last: stat.cpuMs });
  }

  /** Refreshes every tracked pid; a pid that has exited keeps its last reading. */
  sample(): void {
    for (const [pid, entry] of this.tracked) {
      const stat = readProcStat(pid);
      if (stat) entry.last = stat.cpuMs;
    }
  }

  /** CPU ms per group since tracking began. */
  totals(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const entry of this.tracked.values()) {
      out[entry.group] = (out[entry.group] ?? 0) + (entry.last - entry.base);
    }
    return out;
  }

  pids(group: string): number[] {
    return [...this.tracked].filter(([, e]) => e.group === group).map(([pid]) => pid);
  }
}

/**
 * Lists the backends connected to one database. The cluster is shared with other work, so we count
 * only our database's backends (including autovacuum workers on it), not the cluster's background
 * processes (WAL writer, checkpointer): those serve every tenant and cannot be split honestly.
 * It connects to the maintenance database (`BenchServices.pg.adminUrl`), not the bench one, so its
 * own queries every 200 ms do not count as the bench database's commits (pg-cost.ts).
 */
export class PgBackendSampler {
  private constructor(
    private readonly client: pg.Client,
    private readonly database: string,
  ) {}

  static async connect(url: string, database: string): Promise<PgBackendSampler> {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    await client.connect();
    return new PgBackendSampler(client, database);
  }

  async pids(): Promise<number[]> {
    const result = await this.client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [this.database],
    );
    return result.rows.map((row) => row.pid);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}

/** Whole-machine busy fraction between two /proc/stat readings (all cores). */
export function readMachineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total };
}

export function busyFraction(
  before: { busy: number; total: number },
  after: { busy: number; total: number },
): number {
  const total = after.total - before.total;
  return total > 0 ? (after.busy - before.busy) / total : Number.NaN;
}
