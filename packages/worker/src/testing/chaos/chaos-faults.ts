// The faults of the chaos soak, each on its own schedule while the jobs run: SIGKILL a random
// worker every few seconds and start it again under the same id, SIGSTOP one past its lease and
// SIGCONT it (a zombie that wakes up holding jobs it lost), restart redis-server without
// persistence once (streams, groups and pending lists gone) and blackhole the Redis link once
// (half-open sockets: blocked reads hang). The one-off faults fire at a share of settled jobs, so
// a small run and a full run both meet every fault while work is in flight.

import { pingRedis, sleep, spawnNode, waitFor, type ChildHandle } from '@sluice/testkit';
import type { FaultProxy, RedisServer } from '@sluice/testkit';

export const PAID_WORKER_ENTRY = new URL('../paid-worker-child.ts', import.meta.url);

export interface FaultCounts {
  sigkills: number;
  sigstops: number;
  redisRestarts: number;
  blackholes: number;
  redispatched: number;
}

/** The worker processes by id; a killed one is replaced by a fresh process with the same id. */
export class WorkerPool {
  readonly procs = new Map<string, ChildHandle>();
  private readonly stopped = new Set<string>();
  readonly output: string[] = [];

  constructor(private readonly env: (id: string) => Record<string, string>) {}

  async start(id: string): Promise<void> {
    const child = await spawnNode(PAID_WORKER_ENTRY, { env: this.env(id), readyTimeoutMs: 60_000 });
    this.procs.set(id, child);
    await child.waitForLine(/^READY /m, 60_000);
  }

  /** A worker that is running (not paused), chosen at random. */
  pick(): string | undefined {
    const ids = [...this.procs.keys()].filter((id) => !this.stopped.has(id));
    return ids[Math.floor(Math.random() * ids.length)];
  }

  async kill(id: string): Promise<void> {
    const child = this.procs.get(id);
    if (!child) return;
    this.output.push(child.output());
    await child.kill();
    await this.start(id);
  }

  async pause(id: string, ms: number): Promise<void> {
    const child = this.procs.get(id);
    if (!child) return;
    this.stopped.add(id);
    child.signal('SIGSTOP');
    await sleep(ms);
    child.signal('SIGCONT');
    this.stopped.delete(id);
  }

  /** Every worker's output so far, killed processes' included. */
  allOutput(): string {
    return [...this.output, ...[...this.procs.values()].map((c) => c.output())].join('\n');
  }

  async stopAll(): Promise<void> {
    for (const c of this.procs.values()) c.signal('SIGCONT');
    await Promise.all([...this.procs.values()].map((c) => c.stop(5000)));
  }
}

export interface ChaosScheduleOptions {
  pool: WorkerPool;
  server: RedisServer;
  proxy: FaultProxy;
  leaseMs: number;
  killEveryMs: number;
  /** Share of jobs settled so far (0..1). */
  progress: () => Promise<number>;
  /** What the gateway's reconciler does after a Redis loss: dispatch unfinished jobs again. */
  redispatch: () => Promise<number>;
  log: (line: string) => void;
}

export interface ChaosSchedule {
  readonly counts: FaultCounts;
  /** Stops scheduling, waits for a fault in progress, heals the link and wakes every worker. */
  stop(): Promise<void>;
}

export function startChaos(o: ChaosScheduleOptions): ChaosSchedule {
  const counts: FaultCounts = {
    sigkills: 0,
    sigstops: 0,
    redisRestarts: 0,
    blackholes: 0,
    redispatched: 0,
  };
  let running = true;
  const oneOffs: { at: number; name: string; run: () => Promise<void> }[] = [
    { at: 0.15, name: 'sigstop', run: () => pauseOne() },
    { at: 0.3, name: 'blackhole', run: () => blackhole() },
    { at: 0.5, name: 'redis-restart', run: () => restartRedis() },
    { at: 0.7, name: 'sigstop', run: () => pauseOne() },
  ];
  const pauseOne = async () => {
    const id = o.pool.pick();
    if (!id) return;
    counts.sigstops++;
    o.log(`SIGSTOP ${id} for ${o.leaseMs * 2 + 1000} ms`);
    await o.pool.pause(id, o.leaseMs * 2 + 1000);
  };
  const blackhole = async () => {
    counts.blackholes++;
    o.log('blackhole the Redis link for 4000 ms');
    o.proxy.blackhole();
    await sleep(4000);
    o.proxy.heal();
  };
  const restartRedis = async () => {
    counts.redisRestarts++;
    o.log('restart redis-server without persistence');
    await o.server.restart({ persistence: 'none' });
    await waitFor(() => pingRedis(o.server.port), { timeoutMs: 20_000, message: 'redis back' });
    counts.redispatched += await o.redispatch();
  };
  const killer = (async () => {
    while (running) {
      await sleep(o.killEveryMs * (0.5 + Math.random()));
      if (!running || (await o.progress()) >= 0.97) continue;
      const id = o.pool.pick();
      if (!id) continue;
      counts.sigkills++;
      o.log(`SIGKILL ${id}`);
      await o.pool.kill(id);
    }
  })();
  const scheduler = (async () => {
    for (const f of oneOffs) {
      while (running && (await o.progress()) < f.at) await sleep(100);
      if (!running) return;
      o.log(`fault ${f.name} at ${Math.round((await o.progress()) * 100)}% settled`);
      await f.run();
    }
  })();
  return {
    counts,
    async stop() {
      running = false;
      await Promise.all([killer, scheduler]);
      o.proxy.heal();
    },
  };
}
