// What the runtime's transport holds, on the worker's `/metrics` (any runtime with `stats()`;
// never a name check), and the served-versions source a runtime may offer for the unroutable
// sweep when its registry is not the database (a runtime's own registry).

import type { Delivery, RuntimeConsumer, RuntimeStats } from '@sluice/contracts';
import { Counter, Gauge, type Registry } from 'prom-client';

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

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const PREFIX = 'sluice_worker';

type Queue = RuntimeStats['queues'][number];
type Consumer = Queue['consumers'][number];

/**
 * The transport's figures on the worker's registry. `update` takes the snapshot read for this
 * scrape (`undefined`: the transport did not answer, `runtime_stats_up` 0 and no queue rows);
 * the gauges show it, and each runtime counter is registered the first time it appears (their
 * names are the runtime's, not known in advance).
 */
export function registerRuntimeStats(registry: Registry): {
  update(stats: RuntimeStats | undefined): void;
} {
  const registers = [registry];
  let latest: RuntimeStats | undefined;
  new Gauge({
    name: `${PREFIX}_runtime_stats_up`,
    help: '1 when the runtime answered the stats query',
    registers,
    collect() {
      this.set(latest ? 1 : 0);
    },
  });
  const perQueue = (name: string, help: string, f: (q: Queue) => number | null) =>
    new Gauge({
      name: `${PREFIX}_${name}`,
      help,
      labelNames: ['kind', 'version'],
      registers,
      collect() {
        this.reset();
        for (const q of latest?.queues ?? []) {
          const v = f(q);
          if (v !== null) this.set({ kind: q.kind, version: q.version }, v);
        }
      },
    });
  perQueue('queue_length', 'Entries the transport keeps per queue', (q) => q.length);
  perQueue('queue_pending', 'Delivered, not finished (PEL)', (q) => q.pending);
  perQueue('queue_lag', 'Not delivered to any consumer yet', (q) => q.lag);
  perQueue('queue_oldest_pending_age_seconds', 'Age of the oldest pending delivery', (q) =>
    q.oldestPendingAgeMs === null ? null : q.oldestPendingAgeMs / 1000,
  );
  perQueue(
    'queue_max_deliveries',
    'Highest delivery count among the oldest pending',
    (q) => q.maxDeliveries,
  );
  perQueue('queue_dead_letters', 'Entries in the dead-letter place', (q) => q.deadLetters);
  perQueue('queue_consumers', 'Consumers in the group', (q) => q.consumers.length);
  const perConsumer = (name: string, help: string, f: (c: Consumer) => number) =>
    new Gauge({
      name: `${PREFIX}_${name}`,
      help,
      labelNames: ['kind', 'version', 'consumer'],
      registers,
      collect() {
        this.reset();
        for (const q of latest?.queues ?? []) {
          for (const c of q.consumers) {
            this.set({ kind: q.kind, version: q.version, consumer: c.name }, f(c));
          }
        }
      },
    });
  perConsumer('queue_consumer_pending', 'Pending deliveries per consumer', (c) => c.pending);
  perConsumer(
    'queue_consumer_idle_seconds',
    'Time since each consumer last took or renewed work',
    (c) => c.idleMs / 1000,
  );
  const counters = new Set<string>();
  const counter = (key: string) => {
    let last = 0;
    new Counter({
      name: `${PREFIX}_runtime_${snake(key)}_total`,
      help: `Runtime counter ${key}`,
      registers,
      collect() {
        const value = latest?.counters[key] ?? last;
        if (value < last) this.reset();
        else if (value > last) this.inc(value - last);
        last = value;
      },
    });
  };
  return {
    update(stats) {
      latest = stats;
      for (const key of Object.keys(stats?.counters ?? {})) {
        if (counters.has(key)) continue;
        counters.add(key);
        counter(key);
      }
    },
  };
}
