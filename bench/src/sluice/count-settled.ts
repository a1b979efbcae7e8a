// What every Sluice bench worker child does with its settled jobs: counts the succeeded ones for
// the harness (`hooks.completed`) and its SQL figures, and reports the first unexpected outcome
// (a bench job never fails; one that does makes the run's figures meaningless, so say so once).
import type { SettledJob } from '@sluice/worker';

export interface SettledCounter {
  onSettled(jobs: readonly SettledJob[]): void;
  /** Succeeded jobs so far. */
  readonly settled: number;
}

export function countSettled(name: string, completed: (n: number) => void): SettledCounter {
  let settled = 0;
  let unexpected = 0;
  return {
    onSettled(jobs) {
      let done = 0;
      for (const job of jobs) {
        if (job.outcome === 'succeed') done++;
        else if (unexpected++ === 0)
          console.error(`${name}: job ${job.jobId} settled as ${job.outcome}`);
      }
      settled += done;
      if (done > 0) completed(done);
    },
    get settled() {
      return settled;
    },
  };
}
