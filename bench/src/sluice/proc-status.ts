// Memory and CPU of another process from /proc: VmRSS/VmHWM (kB) from status, and resetting the
// peak (writing 5 to clear_refs, Linux ≥ 4.0) so VmHWM afterwards is the peak of one window.
import { readFileSync, writeFileSync } from 'node:fs';
import { readProcStat } from '../harness/cpu.js';

export function readMemKiB(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]);
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/** Resets VmHWM to the current RSS; false when the kernel refuses. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    const { rss, hwm } = readMemKiB(pid);
    return hwm <= rss + 1024;
  } catch {
    return false;
  }
}

/** utime + stime of a process, ms (10 ms ticks). */
export function cpuMsOf(pid: number): number {
  return readProcStat(pid)?.cpuMs ?? Number.NaN;
}
