// Prometheus lines for the gateway's own Streams figures: outbox depth, dispatch pipelines, the
// events tailer and the reconciler (whether this replica is the active one, what it did).

import type { StreamTailer } from '../../events/stream-tailer.js';
import type { Reconciler } from '../../reconciler/create-reconciler.js';
import type { StreamsDispatcher } from './create-streams-dispatcher.js';

export interface RuntimeStatsInput {
  outbox: number;
  dispatcher: Pick<StreamsDispatcher, 'stats'>;
  tailer: Pick<StreamTailer, 'stats'>;
  reconciler: Pick<Reconciler, 'stats' | 'isActive'> | undefined;
}

export function renderReconcilerStats(s: RuntimeStatsInput): string[] {
  const out: string[] = [];
  const one = (name: string, type: 'gauge' | 'counter', help: string, value: number) =>
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${value}`);
  one('sluice_outbox_depth', 'gauge', 'Jobs waiting in the outbox for (re-)dispatch.', s.outbox);
  const d = s.dispatcher.stats;
  one('sluice_dispatch_pipelines_total', 'counter', 'XADD pipelines sent.', d.pipelines);
  one('sluice_dispatch_entries_total', 'counter', 'Job entries added to streams.', d.entries);
  one('sluice_dispatch_failures_total', 'counter', 'Dispatch pipelines that failed.', d.failures);
  const t = s.tailer.stats;
  one(
    'sluice_events_tailer_failures_total',
    'counter',
    'Events-stream reads that failed.',
    t.failures,
  );
  one(
    'sluice_events_tailer_watchdogs_total',
    'counter',
    'Reads torn down by the watchdog.',
    t.watchdogs,
  );
  one(
    'sluice_events_tailer_resyncs_total',
    'counter',
    'Subscriber resyncs after (re)connects.',
    t.resyncs,
  );
  one(
    'sluice_events_relayed_total',
    'counter',
    'Own events relayed to the events stream.',
    t.relayed,
  );
  const r = s.reconciler;
  one(
    'sluice_reconciler_active',
    'gauge',
    'This replica runs the reconciler now.',
    r?.isActive() ? 1 : 0,
  );
  if (r) {
    one(
      'sluice_reconciler_runs_total',
      'counter',
      'Reconciler passes run while active.',
      r.stats.runs,
    );
    one(
      'sluice_reconciler_losses_total',
      'counter',
      'Transport data losses detected.',
      r.stats.lossesDetected,
    );
    one(
      'sluice_reconciler_redispatched_total',
      'counter',
      'Jobs dispatched again (loss, sweep).',
      r.stats.redispatched,
    );
    one(
      'sluice_reconciler_outbox_dispatched_total',
      'counter',
      'Jobs dispatched from the outbox.',
      r.stats.outboxDispatched,
    );
    one(
      'sluice_reconciler_errors_total',
      'counter',
      'Reconciler passes that failed.',
      r.stats.errors,
    );
  }
  return out;
}
