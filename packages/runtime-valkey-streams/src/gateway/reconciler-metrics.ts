// The gateway's own Streams figures on its registry: outbox depth, dispatch pipelines, the events
// tailer and the reconciler (whether this replica is the active one, what it did). The counters
// live in those components' `stats` objects; prom-client reads them when scraped.

import { Gauge, type Registry } from 'prom-client';
import { counterFrom } from '@sluice/gateway';
import type { StreamTailer } from './stream-tailer.js';
import type { Reconciler } from '@sluice/gateway';
import type { StreamsDispatcher } from './create-streams-dispatcher.js';

export interface RuntimeStatsInput {
  /** Outbox rows, read once per scrape; `undefined` when it could not be read. */
  outbox(): Promise<number | undefined>;
  dispatcher: Pick<StreamsDispatcher, 'stats'>;
  tailer: Pick<StreamTailer, 'stats'>;
  reconciler: Pick<Reconciler, 'stats' | 'isActive'> | undefined;
}

export function registerReconcilerMetrics(registry: Registry, s: RuntimeStatsInput): void {
  new Gauge({
    name: 'sluice_outbox_depth',
    help: 'Jobs waiting in the outbox for (re-)dispatch.',
    registers: [registry],
    async collect() {
      const n = await s.outbox();
      this.reset();
      if (n !== undefined) this.set(n);
    },
  });
  const count = (name: string, help: string, read: () => number) =>
    counterFrom(registry, name, help, read);
  const d = s.dispatcher.stats;
  count('sluice_dispatch_pipelines_total', 'XADD pipelines sent.', () => d.pipelines);
  count('sluice_dispatch_entries_total', 'Job entries added to streams.', () => d.entries);
  count('sluice_dispatch_failures_total', 'Dispatch pipelines that failed.', () => d.failures);
  const t = s.tailer.stats;
  count(
    'sluice_events_tailer_failures_total',
    'Events-stream reads that failed.',
    () => t.failures,
  );
  count(
    'sluice_events_tailer_watchdogs_total',
    'Reads torn down by the watchdog.',
    () => t.watchdogs,
  );
  count(
    'sluice_events_tailer_resyncs_total',
    'Subscriber resyncs after (re)connects.',
    () => t.resyncs,
  );
  count('sluice_events_relayed_total', 'Own events relayed to the events stream.', () => t.relayed);
  const r = s.reconciler;
  new Gauge({
    name: 'sluice_reconciler_active',
    help: 'This replica runs the reconciler now.',
    registers: [registry],
    collect() {
      this.set(r?.isActive() ? 1 : 0);
    },
  });
  if (!r) return;
  count('sluice_reconciler_runs_total', 'Reconciler passes run while active.', () => r.stats.runs);
  count(
    'sluice_reconciler_losses_total',
    'Transport data losses detected.',
    () => r.stats.lossesDetected,
  );
  count(
    'sluice_reconciler_redispatched_total',
    'Jobs dispatched again (loss, sweep).',
    () => r.stats.redispatched,
  );
  count(
    'sluice_reconciler_outbox_dispatched_total',
    'Jobs dispatched from the outbox.',
    () => r.stats.outboxDispatched,
  );
  count('sluice_reconciler_errors_total', 'Reconciler passes that failed.', () => r.stats.errors);
}
