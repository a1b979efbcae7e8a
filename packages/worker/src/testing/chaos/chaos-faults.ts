// The faults of the chaos soak, each on its own schedule while the jobs run: SIGKILL a random
// worker every few seconds and start it again under the same id, SIGSTOP one past its lease and
// SIGCONT it (a zombie that wakes up holding jobs it lost), restart the broker's server empty
// once (every queue, consumer and pending delivery gone) and blackhole the workers' broker link
// once (half-open sockets: blocked reads and flushes hang). The one-off faults fire at a share of
// settled jobs, so a small run and a full run both meet every fault while work is in flight.

import { sleep, spawnNode, type ChildHandle, type FaultProxy } from '@sluice/testkit';
import { PAID_WORKER_ENTRY } from '../asset-runs.js';
import type { ChaosAdapter, ChaosBroker } from './chaos-adapter.js';

export interface FaultCounts {
  sigkills: number;
  sigstops: number;
  serverRestarts: number;
  blackholes: number;
  redispatched: number;
}

/** The worker processes by id; a killed one is replaced by a fresh process with the same id. */
export class WorkerPool {
  readonly procs = new Map<string, ChildHandle>();
  private readonly stopped = new Set<string>();
  private readonly starting = new Set<string>();
  readonly output: string[] = [];

  constructor(private readonly env: (id: string) => Record<string, string>) {}

  /** Spawns the worker; resolves once it is ready, or at once with `ready: false`. */
  async start(id: string, opts: { ready?: boolean } = {}): Promise<void> {
    const child = await spawnNode(PAID_WORKER_ENTRY, { env: this.env(id) });
    this.procs.set(id, child);
    this.starting.add(id);
    const ready = child
      .waitForLine(/^READY /m, 60_000)
      .finally(() => this.procs.get(id) === child && this.starting.delete(id));
    if (opts.ready === false) ready.catch(() => {});
    else await ready;
  }

  /**
   * A worker that is ready and not paused, chosen at random; none while a replacement is still
   * starting, so at most one worker is down at a time (start-up takes seconds on a loaded box).
   */
  pick(): string | undefined {
    if (this.starting.size > 0) return undefined;
    const ids = [...this.procs.keys()].filter(
      (id) => !this.stopped.has(id) && !this.starting.has(id),
    );
    return ids[Math.floor(Math.random() * ids.length)];
  }

  async kill(id: string): Promise<void> {
    const child = this.procs.get(id);
    if (!child) return;
    this.output.push(child.output());
    await child.kill();
    // Not awaited: the schedule goes on while it starts (it is not picked again until ready).
    await this.start(id, { ready: false });
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
  adapter: ChaosAdapter;
  broker: ChaosBroker;
  proxy: FaultProxy;
  leaseMs: number;
  killEveryMs: number;
  /** Share of jobs settled so far (0..1). */
  progress: () => Promise<number>;
  /** What the gateway's reconciler does after a broker loss: dispatch unfinished jobs again. */
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
    serverRestarts: 0,
    blackholes: 0,
    redispatched: 0,
  };
  let running = true;
  // A failed read (the database going away at the end) is no progress, never a crash.
  const progress = () => o.progress().catch(() => 0);
  const oneOffs: { at: number; name: string; run: () => Promise<void> }[] = [
    { at: 0.15, name: 'sigstop', run: () => pauseOne() },
    { at: 0.3, name: 'blackhole', run: () => blackhole() },
    { at: 0.5, name: 'server-restart', run: () => restartServer() },
    { at: 0.7, name: 'sigstop', run: () => pauseOne() },
  ];
  const pauseOne = async () => {
    // Waits for a ready worker (a killed one may still be starting).
    let id = o.pool.pick();
    while (running && !id) {
      await sleep(100);
      id = o.pool.pick();
    }
    if (!id) return;
    counts.sigstops++;
    // Past the lease and the claim, but short enough that the zombie wakes while the attempt
    // that took its jobs over still runs them: its late writes must then all be refused.
    const ms = o.leaseMs + 1500;
    o.log(`SIGSTOP ${id} for ${ms} ms`);
    await o.pool.pause(id, ms);
  };
  const blackhole = async () => {
    counts.blackholes++;
    o.log(`blackhole the ${o.adapter.broker} link for 4000 ms`);
    o.proxy.blackhole();
    await sleep(4000);
    o.proxy.heal();
  };
  const restartServer = async () => {
    counts.serverRestarts++;
    o.log(`restart ${o.adapter.restartNote}`);
    await o.broker.restartEmpty();
    counts.redispatched += await redispatch();
  };
  // As the gateway's reconciler does after a loss: again on its next ticks until it went through.
  const redispatch = async (): Promise<number> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await o.redispatch();
      } catch (error) {
        if (attempt >= o.adapter.redispatchTries) throw error;
        await sleep(500);
      }
    }
  };
  const killer = (async () => {
    while (running) {
      await sleep(o.killEveryMs * (0.5 + Math.random()));
      if (!running || (await progress()) >= 0.97) continue;
      const id = o.pool.pick();
      if (!id) continue;
      counts.sigkills++;
      o.log(`SIGKILL ${id}`);
      await o.pool.kill(id);
    }
  })();
  const scheduler = (async () => {
    for (const f of oneOffs) {
      while (running && (await progress()) < f.at) await sleep(100);
      if (!running) return;
      o.log(`fault ${f.name} at ${Math.round((await progress()) * 100)}% settled`);
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
