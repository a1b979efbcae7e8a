// CPU accounting for one timed window: the forked children, the private redis-server, the
// backends of the bench database, and a durable engine's own server (restate-server), sampled
// while the window is open; for that server also the bytes it wrote to storage.
import type { BenchServices, Need } from '../adapter.js';
import { CpuMeter, PgBackendSampler, readWriteBytes } from './cpu.js';

/** How often PostgreSQL backends are listed (new ones picked up, exiting ones read last). */
const PG_SAMPLE_MS = 200;

export interface CpuBreakdown {
  workers: number;
  redis: number;
  postgres: number;
  producer: number;
  /** A durable engine's own server process(es): restate-server. */
  engine: number;
  /** Bytes the engine server caused to be written to storage (`/proc/<pid>/io` write_bytes). */
  engineWriteBytes: number;
}

export interface Accounting {
  /** Closes the window and returns CPU ms per group. */
  finish(): Promise<CpuBreakdown>;
}

export async function startAccounting(
  services: BenchServices,
  needs: readonly Need[],
  groups: {
    workers: readonly number[];
    producer?: readonly number[];
    engine?: readonly number[];
  },
): Promise<Accounting> {
  const meter = new CpuMeter();
  for (const pid of groups.workers) meter.track('workers', pid);
  for (const pid of groups.producer ?? []) meter.track('producer', pid);
  for (const pid of groups.engine ?? []) meter.track('engine', pid);
  const enginePids = groups.engine ?? [];
  const writtenBefore = enginePids.map(readWriteBytes);
  // One 'redis' group whichever server the system runs on (the AOF one's fsync thread included:
  // /proc/<pid>/stat sums every thread; a rewrite's forked child is not counted).
  if (needs.includes('redis') && services.redis) meter.track('redis', services.redis.pid);
  if (needs.includes('redis-aof') && services.redisAof) meter.track('redis', services.redisAof.pid);

  let sampler: PgBackendSampler | undefined;
  let stopped = false;
  let loop: Promise<void> = Promise.resolve();
  if (needs.includes('postgres') && services.pg) {
    const pgService = services.pg;
    sampler = await PgBackendSampler.connect(pgService.adminUrl, pgService.name);
    const active = sampler;
    for (const pid of await active.pids()) meter.track('postgres', pid);
    loop = (async () => {
      while (!stopped) {
        await new Promise((resolve) => setTimeout(resolve, PG_SAMPLE_MS));
        if (stopped) break;
        for (const pid of await active.pids()) meter.track('postgres', pid);
        meter.sample();
      }
    })();
  }

  return {
    async finish() {
      stopped = true;
      meter.sample();
      await loop.catch(() => undefined);
      if (sampler) {
        for (const pid of await sampler.pids()) meter.track('postgres', pid);
        meter.sample();
        await sampler.close();
      }
      const totals = meter.totals();
      const written = enginePids.map(readWriteBytes);
      return {
        workers: totals.workers ?? 0,
        redis: totals.redis ?? 0,
        postgres: totals.postgres ?? 0,
        producer: totals.producer ?? 0,
        engine: totals.engine ?? 0,
        engineWriteBytes: written.reduce(
          (sum, w, k) => sum + Math.max(0, w - (writtenBefore[k] ?? w)),
          0,
        ),
      };
    },
  };
}

/**
 * CPU ms per 1,000 jobs for each group, and the total over workers and servers (the engine's own
 * server included); with an engine server, its storage writes per job.
 */
export function perThousand(
  cpu: CpuBreakdown,
  jobs: number,
  engineServer = false,
): Record<string, number> {
  const k = jobs / 1000;
  return {
    cpuMsPer1k: (cpu.workers + cpu.redis + cpu.postgres + cpu.engine) / k,
    cpuWorkersMsPer1k: cpu.workers / k,
    cpuRedisMsPer1k: cpu.redis / k,
    cpuPostgresMsPer1k: cpu.postgres / k,
    cpuProducerMsPer1k: cpu.producer / k,
    ...(engineServer
      ? { cpuEngineMsPer1k: cpu.engine / k, engineWriteBytesPerJob: cpu.engineWriteBytes / jobs }
      : {}),
  };
}
