// Row 11: Sluice beside the durable engines users compare it with (pg-boss, DBOS Transact,
// Restate, Absurd), each job a one-step no-op workflow whose step is each engine's durable step.
import type { Scenario, SuiteSize } from './scenarios.js';

/** Row 11's engines, in the order they run (`--engines` picks a subset). */
export const DURABLE_ENGINES = ['pgboss', 'dbos', 'restate', 'absurd'] as const;

/**
 * Row 11: Sluice beside the durable engines users compare it with, each job a one-step no-op
 * workflow (the step is each engine's durable step). BullMQ runs first in the same rounds, so each
 * engine's ratio to it is paired too ("Anchors against each other"). Drain: the row-1 job count
 * and cap, c64 × 1; latency: open loop at 500/s and 1,000/s, c64.
 */
export function durableScenarios(size: SuiteSize): Scenario[] {
  const anchors = ['bullmq', ...size.durableEngines];
  const rounds = Math.min(size.rounds, size.durableRounds);
  const out: Scenario[] = [
    {
      id: 'durable.drain.c64',
      row: 11,
      title:
        `durable engines: drain ${size.drainJobs} one-step no-op workflows, c64 × 1 proc ` +
        `(clock capped at ${size.drainCapSeconds} s)`,
      spec: {
        kind: 'drain',
        jobs: size.drainJobs,
        concurrency: 64,
        processes: 1,
        handler: { kind: 'noop' },
        maxSeconds: size.drainCapSeconds,
      },
      subjects: ['sluice-streams', 'sluice-embedded-pg'],
      anchors,
      rounds,
    },
  ];
  for (const rate of [500, 1_000])
    out.push({
      id: `durable.latency.${rate}`,
      row: 11,
      title:
        `durable engines: open loop ${rate.toLocaleString('en-US')}/s × ` +
        `${size.durableLatencySeconds} s (first 1 s excluded), c64, backlog capped at ` +
        `${size.durableLatencySeconds} s`,
      spec: {
        kind: 'latency',
        rate,
        seconds: size.durableLatencySeconds,
        warmupSeconds: 1,
        concurrency: 64,
        processes: 1,
        drainCapSeconds: size.durableLatencySeconds,
      },
      subjects: ['sluice-streams'],
      anchors,
      rounds,
    });
  return out;
}
