// Opt-in profile of each consumer run (`BENCH_PROFILE=1`): the child profiles itself through the
// inspector from the end of its setup to its close (so module loading and connecting are not in
// it, unlike `BENCH_CPU_PROF`'s whole-process profiles) and prints, to stderr just before the
// parent's `round …` line of that run, its CPU and GC per 1,000 jobs and its top self-time
// functions, and the top allocation sites in bytes per job (V8's sampling heap profiler, one sample
// per 32 KiB allocated on average, counting what the GC collected too: what a job allocates,
// not what stays). GC time comes from perf_hooks `gc` entries (pauses on the main thread, whatever the
// profiler's sampling caught). The child pool stays on: every run starts its own profile.
// `BENCH_PROFILE_DIR=<dir>` also keeps each run's `.cpuprofile` and `.heapprofile` there (for
// summarize-profile.ts or DevTools).
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { topSelf, type Profile } from '../tools/summarize-profile.js';

const TOP = 10;

export interface RunProfile {
  /** Stops profiling and prints the summary for `jobs` completed jobs. */
  stop(jobs: number): Promise<void>;
}

export async function startRunProfile(label: string): Promise<RunProfile | undefined> {
  if (process.env.BENCH_PROFILE !== '1') return undefined;
  const session = new Session();
  session.connect();
  let gcMs = 0;
  let gcPauses = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration;
      gcPauses++;
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  await session.post('Profiler.enable');
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 32 * 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await session.post('Profiler.start');
  const cpuBefore = process.cpuUsage();
  return {
    async stop(jobs) {
      const cpu = process.cpuUsage(cpuBefore);
      const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
      const heap = (await session.post('HeapProfiler.stopSampling')) as { profile: HeapProfile };
      gc.disconnect();
      session.disconnect();
      const dir = process.env.BENCH_PROFILE_DIR;
      if (dir) {
        const file = `${label.replace(/[^\w.-]+/g, '-')}-${process.pid}-${Date.now()}.cpuprofile`;
        writeFileSync(join(dir, file), JSON.stringify(profile));
        writeFileSync(
          join(dir, file.replace(/cpuprofile$/, 'heapprofile')),
          JSON.stringify(heap.profile),
        );
      }
      const cpuMs = (cpu.user + cpu.system) / 1000;
      const per1k = (ms: number) => (jobs > 0 ? ((ms * 1000) / jobs).toFixed(1) : '–');
      const top = topSelf(profile, TOP);
      process.stderr.write(
        [
          `[profile] ${label}: ${jobs} jobs, CPU ${per1k(cpuMs)} ms/1k jobs, ` +
            `GC ${per1k(gcMs)} ms/1k jobs (${((100 * gcMs) / cpuMs).toFixed(1)} % of CPU, ` +
            `${gcPauses} pauses; ${((100 * top.gcMs) / top.busyMs).toFixed(1)} % of profiled busy)`,
          `[profile] top ${TOP} self time (share of profiled busy ${top.busyMs.toFixed(0)} ms):`,
          ...top.lines.map((line) => `[profile] ${line}`),
          ...topAllocations(heap.profile.head, jobs, TOP).map((line) => `[profile] ${line}`),
          '',
        ].join('\n'),
      );
    },
  };
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}
interface HeapProfile {
  head: HeapNode;
}

/** Sampled bytes by allocating function (`name file:line`), largest first. */
function topAllocations(head: HeapNode, jobs: number, n: number): string[] {
  const bytes = new Map<string, number>();
  let total = 0;
  const visit = (node: HeapNode) => {
    if (node.selfSize > 0) {
      const f = node.callFrame;
      const file = f.url.replace(/^.*\/(packages|node_modules)\//, '').replace(/^file:\/\//, '');
      const key = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
      bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) visit(child);
  };
  visit(head);
  const perJob = (b: number) => (b / Math.max(1, jobs)).toFixed(0).padStart(7);
  return [
    `allocated ${perJob(total).trim()} B per job (sampled); top ${n} sites, bytes per job and share:`,
    ...[...bytes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, b]) => `${perJob(b)} B  ${((100 * b) / total).toFixed(1).padStart(5)} %  ${key}`),
  ];
}

/** `sluice-streams c64 noop #0`: the module, the run's concurrency and handler, the process. */
export function profileLabel(module: string, concurrency: number, handler: string, index: number) {
  return `${basename(module).replace(/\.[jt]s$/, '')} c${concurrency} ${handler} #${index}`;
}
