// Consumer and producer processes kept across runs. Forking a child costs 2–4 s of module loading
// under tsx on this machine (more than most measured windows), and a suite makes 50–150 runs, so
// each process serves run after run: a run sends `init` with its config (the child connects and
// reports `ready`), `go`, and on release `end` (the child closes the run's consumer: its worker,
// connections and timers, and keeps only its loaded modules). Every run still gets a fresh queue,
// fresh connections and a fresh worker object; what carries over is code already loaded and
// compiled, for every system alike. With BENCH_CPU_PROF or BENCH_SQL_STATS set, a process serves
// one run only, so its profile or statement tally covers that run alone.
import { forkChild, stopAll, type ChildHandle } from './children.js';
import type { ChildRole, RunInit, RunReport } from './protocol.js';

const READY_TIMEOUT_MS = 60_000;
/** A consumer's close waits for its in-flight jobs (a capped run leaves some): 2 s deadline + slack. */
const END_TIMEOUT_MS = 15_000;

export interface ChildPool {
  /** `count` processes running `module`, each initialised for this run and ready for `go`. */
  acquire(
    role: Exclude<ChildRole, 'service'>,
    module: string,
    count: number,
    run: RunInit,
  ): Promise<{ children: ChildHandle[]; forked: number }>;
  /**
   * Ends the run in each process and keeps it for the next; one that cannot end is stopped.
   * Returns each process's report in `children` order (undefined where it could not end).
   */
  release(children: readonly ChildHandle[]): Promise<(RunReport | undefined)[]>;
  /** Stops every idle process (the end of the suite). */
  close(): Promise<void>;
}

export function createChildPool(opts: { reuse: boolean } = { reuse: defaultReuse() }): ChildPool {
  const idle = new Map<string, ChildHandle>();
  const keys = new Map<ChildHandle, string>();

  const take = (role: ChildRole, module: string, index: number): [ChildHandle, boolean] => {
    const key = `${role} ${index} ${module}`;
    const existing = idle.get(key);
    idle.delete(key);
    if (existing?.usable) return [existing, false];
    const child = forkChild({ role, module, index });
    keys.set(child, key);
    return [child, true];
  };

  // Every run is ended the same way, kept process or not, so its report (jobs, statements) comes
  // back either way; then the process waits for the next run or is stopped.
  const endRun = async (child: ChildHandle): Promise<RunReport | undefined> => {
    const key = keys.get(child);
    let report: RunReport | undefined;
    let ended = false;
    if (child.usable) {
      try {
        const reply = child.next('ended', END_TIMEOUT_MS);
        child.send({ type: 'end' });
        report = (await reply).report;
        ended = true;
      } catch {
        ended = false;
      }
    }
    if (opts.reuse && key && ended && child.usable) idle.set(key, child);
    else {
      keys.delete(child);
      await child.stop();
    }
    return report;
  };

  return {
    async acquire(role, module, count, run) {
      const children: ChildHandle[] = [];
      const fresh = new Set<ChildHandle>();
      for (let index = 0; index < count; index++) {
        const [child, isNew] = take(role, module, index);
        children.push(child);
        if (isNew) fresh.add(child);
      }
      try {
        await Promise.all(
          children.map(async (child) => {
            // A new process drops messages sent before it listens: wait until it says so.
            if (fresh.has(child)) await child.next('loaded', READY_TIMEOUT_MS);
            const ready = child.next('ready', READY_TIMEOUT_MS);
            child.send({ type: 'init', run });
            return ready;
          }),
        );
      } catch (error) {
        await stopAll(children);
        for (const child of children) keys.delete(child);
        throw error;
      }
      return { children, forked: fresh.size };
    },
    release: (children) => Promise.all(children.map(endRun)),
    async close() {
      const all = [...idle.values()];
      idle.clear();
      keys.clear();
      await stopAll(all);
    },
  };
}

/** Profiles and statement tallies are written per process: one run per process while they are on. */
function defaultReuse(): boolean {
  return !process.env.BENCH_CPU_PROF && !process.env.BENCH_SQL_STATS;
}
