// What the runtime's transport holds, on the worker's `/metrics` (any runtime with `stats()`;
// never a name check), and the served-versions source a runtime may offer for the unroutable
// sweep when its registry is not the database (the Streams ZSET).

import type { Delivery, RuntimeConsumer, RuntimeStats } from '@sluice/contracts';

export interface ServedVersionsSource {
  servedVersions(kind: string): Promise<readonly string[]>;
}

/** The runtime's own served-versions registry, when it has one. */
export function runtimeServedVersions(
  consumer: RuntimeConsumer<Delivery>,
): ((kind: string) => Promise<readonly string[]>) | undefined {
  const source = consumer as Partial<ServedVersionsSource>;
  return typeof source.servedVersions === 'function'
    ? (kind) => (source as ServedVersionsSource).servedVersions(kind)
    : undefined;
}

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Prometheus text for a stats snapshot; `undefined` (the transport did not answer) says so. */
export function renderRuntimeStats(
  stats: RuntimeStats | undefined,
  prefix = 'sluice_worker',
): string {
  const out: string[] = [];
  const metric = (name: string, help: string, type: string, rows: [string, number][]) => {
    out.push(`# HELP ${prefix}_${name} ${help}`, `# TYPE ${prefix}_${name} ${type}`);
    for (const [labels, v] of rows) out.push(`${prefix}_${name}${labels} ${v}`);
  };
  metric('runtime_stats_up', '1 when the runtime answered the stats query', 'gauge', [
    ['', stats ? 1 : 0],
  ]);
  if (!stats) return `${out.join('\n')}\n`;
  const q = stats.queues;
  const by = (kind: string, version: string, extra = '') =>
    `{kind="${esc(kind)}",version="${esc(version)}"${extra}}`;
  const gauge = (name: string, help: string, f: (s: (typeof q)[number]) => number | null) =>
    metric(
      name,
      help,
      'gauge',
      q.flatMap((s): [string, number][] => {
        const v = f(s);
        return v === null ? [] : [[by(s.kind, s.version), v]];
      }),
    );
  gauge('queue_length', 'Entries the transport keeps per queue', (s) => s.length);
  gauge('queue_pending', 'Delivered, not finished (PEL)', (s) => s.pending);
  gauge('queue_lag', 'Not delivered to any consumer yet', (s) => s.lag);
  gauge('queue_oldest_pending_age_seconds', 'Age of the oldest pending delivery', (s) =>
    s.oldestPendingAgeMs === null ? null : s.oldestPendingAgeMs / 1000,
  );
  gauge(
    'queue_max_deliveries',
    'Highest delivery count among the oldest pending',
    (s) => s.maxDeliveries,
  );
  gauge('queue_dead_letters', 'Entries in the dead-letter place', (s) => s.deadLetters);
  gauge('queue_consumers', 'Consumers in the group', (s) => s.consumers.length);
  const perConsumer = (f: (c: { pending: number; idleMs: number }) => number) =>
    q.flatMap((s) =>
      s.consumers.map((c): [string, number] => [
        by(s.kind, s.version, `,consumer="${esc(c.name)}"`),
        f(c),
      ]),
    );
  metric(
    'queue_consumer_pending',
    'Pending deliveries per consumer',
    'gauge',
    perConsumer((c) => c.pending),
  );
  metric(
    'queue_consumer_idle_seconds',
    'Time since each consumer last took or renewed work',
    'gauge',
    perConsumer((c) => c.idleMs / 1000),
  );
  for (const [key, value] of Object.entries(stats.counters)) {
    metric(`runtime_${snake(key)}_total`, `Runtime counter ${key}`, 'counter', [['', value]]);
  }
  return `${out.join('\n')}\n`;
}
