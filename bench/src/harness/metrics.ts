// Which figures each kind of scenario reports, which direction is better, and how to print them.
import type { ScenarioSpec } from '../scenarios.js';
import type { Better } from './stats.js';

export type MetricFormat = 'rate' | 'ms' | 'percent' | 'cpu' | 'count' | 'mib' | 'seconds';

export interface MetricDef {
  key: string;
  label: string;
  better: Better;
  format: MetricFormat;
  /** Only Sluice measures it (accept→start, commit→subscriber); anchors print a dash. */
  subjectOnly?: boolean;
}

const CPU: MetricDef = {
  key: 'cpuMsPer1k',
  label: 'CPU ms / 1k jobs (workers + servers)',
  better: 'lower',
  format: 'cpu',
};

export function metricDefs(spec: ScenarioSpec): MetricDef[] {
  switch (spec.kind) {
    case 'drain':
      return [
        { key: 'jobsPerSec', label: 'jobs/s', better: 'higher', format: 'rate' },
        ...(spec.handler.kind === 'sleep'
          ? [
              {
                key: 'capShare',
                label: '% of cap (c ÷ 10 ms)',
                better: 'higher',
                format: 'percent',
              } as const,
            ]
          : []),
        CPU,
      ];
    case 'latency':
      return [
        { key: 'p50', label: 'dispatch→start p50 ms', better: 'lower', format: 'ms' },
        { key: 'p99', label: 'dispatch→start p99 ms', better: 'lower', format: 'ms' },
        { key: 'max', label: 'dispatch→start max ms', better: 'lower', format: 'ms' },
        {
          key: 'acceptToStartP50',
          label: 'accept→start p50 ms',
          better: 'lower',
          format: 'ms',
          subjectOnly: true,
        },
        {
          key: 'acceptToStartP99',
          label: 'accept→start p99 ms',
          better: 'lower',
          format: 'ms',
          subjectOnly: true,
        },
        {
          key: 'commitToSubscriberP50',
          label: 'terminal commit→subscriber p50 ms',
          better: 'lower',
          format: 'ms',
          subjectOnly: true,
        },
        {
          key: 'commitToSubscriberP99',
          label: 'terminal commit→subscriber p99 ms',
          better: 'lower',
          format: 'ms',
          subjectOnly: true,
        },
        CPU,
      ];
    case 'submit':
      return [
        { key: 'requestsPerSec', label: 'req/s', better: 'higher', format: 'rate' },
        { key: 'p50Ms', label: 'p50 ms', better: 'lower', format: 'ms' },
        { key: 'p99Ms', label: 'p99 ms', better: 'lower', format: 'ms' },
        { key: 'errors', label: 'errors', better: 'lower', format: 'count' },
      ];
    case 'upload':
      return [
        { key: 'mibPerSec', label: 'MiB/s', better: 'higher', format: 'rate' },
        { key: 'peakRssGrowthMiB', label: 'peak RSS growth MiB', better: 'lower', format: 'mib' },
      ];
    case 'fairness':
      return [
        { key: 'idleP50', label: "B's dispatch→start p50 ms, idle", better: 'lower', format: 'ms' },
        { key: 'idleP99', label: "B's dispatch→start p99 ms, idle", better: 'lower', format: 'ms' },
        { key: 'p50', label: "B's p50 ms beside A's backlog", better: 'lower', format: 'ms' },
        { key: 'p99', label: "B's p99 ms beside A's backlog", better: 'lower', format: 'ms' },
        {
          key: 'backlogLeft',
          label: "A's jobs still queued at B's last submit",
          better: 'higher',
          format: 'count',
        },
      ];
    case 'limits': {
      const bound = 2 * Math.max(1, spec.callsPerSecond) + 3;
      return [
        {
          key: 'maxInFlight',
          label: `max in flight at provider (≤ ${spec.maxConcurrent})`,
          better: 'lower',
          format: 'count',
        },
        {
          key: 'busiestSecond',
          label: `busiest 1 s of arrivals (≤ ${bound})`,
          better: 'lower',
          format: 'count',
        },
        {
          key: 'rateUse',
          label: `calls/s after the burst ÷ ${spec.callsPerSecond}`,
          better: 'higher',
          format: 'percent',
        },
        { key: 'totalSeconds', label: 'total s', better: 'lower', format: 'seconds' },
      ];
    }
    case 'watchers':
      return [
        { key: 'p50Ms', label: 'commit→arrival p50 ms', better: 'lower', format: 'ms' },
        { key: 'p99Ms', label: 'commit→arrival p99 ms', better: 'lower', format: 'ms' },
      ];
  }
}

/** The CPU split kept for the detail table (ms per 1,000 jobs). */
export const CPU_DETAIL_KEYS = [
  ['cpuWorkersMsPer1k', 'workers'],
  ['cpuRedisMsPer1k', 'redis-server'],
  ['cpuPostgresMsPer1k', 'PostgreSQL backends'],
  ['cpuProducerMsPer1k', 'producer'],
  ['cpuEngineMsPer1k', 'engine server'],
] as const;

/**
 * Per completed job (pg-cost.ts): client-side counts from the children, and the bench database's
 * commits and row writes and the cluster's WAL bytes. Only the runs that measured them have them.
 */
export const COST_DETAIL_KEYS = [
  ['statementsPerJob', 'statements'],
  ['roundTripsPerJob', 'round trips'],
  ['commitsPerJob', 'commits'],
  ['rowWritesPerJob', 'row writes'],
  ['walBytesPerJob', 'WAL bytes (cluster-wide)'],
  ['engineWriteBytesPerJob', 'engine server storage bytes'],
  ['producerStatementsPerJob', 'producer statements'],
  ['producerRoundTripsPerJob', 'producer round trips'],
] as const;

export function formatValue(value: number, format: MetricFormat): string {
  if (!Number.isFinite(value)) return '—';
  switch (format) {
    case 'rate':
      return Math.round(value).toLocaleString('en-US');
    case 'ms':
      return value < 10 ? value.toFixed(2) : value.toFixed(1);
    case 'percent':
      return `${value.toFixed(0)} %`;
    case 'cpu':
      return value.toFixed(1);
    case 'count':
      return String(Math.round(value));
    case 'mib':
      return value.toFixed(0);
    case 'seconds':
      return value.toFixed(2);
  }
}
