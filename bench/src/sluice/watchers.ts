// Row 8: N WebSocket subscriptions (`jobs.watch`, one job each) on one gateway, held by the
// watcher-client host; a writer (in the parent, with its own database handle) commits one state
// event per job, open loop; latency = arrival at the client − the writer's stamp right after its
// commit (both on the system-wide monotonic clock).
import type { BenchServices, WatchersResult, WatchersSpec } from '../adapter.js';
import { summarizeLatency } from '../harness/stats.js';
import { writeStartEvents } from './event-writer.js';
import { startGatewayRun } from './gateway-run.js';
import { host } from './hosts.js';
import type { Storage } from './sluice-db.js';
/** Events per second the writer commits (1,000 events take 2 s). */
const EVENT_RATE = 500;
/** After the last commit, how long arrivals may take before the rest count as missing. */
const ARRIVAL_GRACE_MS = 10_000;

export async function runWatchers(
  storage: Storage,
  services: BenchServices,
  spec: WatchersSpec,
): Promise<WatchersResult> {
  const run = await startGatewayRun(storage, services, { watchJobs: spec.subscribers });
  const clients = await host('watchClients');
  try {
    const wsUrl = `${run.gateway.url.replace(/^http/, 'ws')}/ws`;
    const opened = await clients.call<{ sockets: number; openMs: number }>('open', {
      ids: run.jobIds,
      wsUrl,
      apiKey: run.apiKey,
    });
    const stats = await run.gateway.call<{ sockets: number; subscriptions: number }>('stats');
    const written = await writeStartEvents(run.dbUrl, run.jobIds.slice(0, spec.events), EVENT_RATE);
    const got = await clients.call<{ arrivals: Record<string, number>; error: string | null }>(
      'collect',
      { expect: written.commits.size, timeoutMs: ARRIVAL_GRACE_MS },
    );
    const samples: number[] = [];
    let missing = 0;
    for (const [id, committedAt] of written.commits) {
      const at = got.arrivals[id];
      if (at === undefined) missing++;
      else samples.push(at - committedAt);
    }
    if (samples.length === 0) throw new Error(`no event arrived (${got.error ?? 'no error'})`);
    const s = summarizeLatency(samples);
    return {
      p50Ms: s.p50,
      p99Ms: s.p99,
      samples: s.count,
      detail: {
        storage,
        gatewayPid: run.gateway.pid,
        client: 'raw tRPC-over-WebSocket frames on `ws` (one socket and one jobs.watch each)',
        sockets: opened.sockets,
        openMs: opened.openMs,
        gatewaySockets: stats.sockets,
        gatewaySubscriptions: stats.subscriptions,
        eventRate: EVENT_RATE,
        writerSeconds: written.seconds,
        writerLateMaxMs: written.lateMaxMs,
        writerFailed: written.failed,
        missing,
        latencyMs: s,
        clientError: got.error,
      },
    };
  } finally {
    await clients.call('reset').catch(() => undefined);
    await run.dispose();
  }
}
