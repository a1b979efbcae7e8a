// The scale run's open-loop producer: job i is due at start + i / rate, whatever happened to
// earlier submits, and goes to the gateways in turn through their accept path
// (`POST /trpc/jobs.submit`, API-key auth, validation, group commit, dispatch). Submits due in the
// same 20 ms tick travel as one tRPC batch request per gateway (at most MAX_BATCH_CALLS calls), as
// @sluice/client's httpBatchLink sends concurrent calls; each call in it is its own accept. The
// input's `t` is the wall clock just before the request, for the worker's submit→start sample.
// In-flight requests per gateway are bounded: when a gateway falls behind, due jobs wait here and
// the wait shows as `lag` (jobs due but not yet sent) instead of as an unbounded socket pile.
import { MAX_BATCH_CALLS } from '@sluice/contracts';
import { BENCH_KIND } from '../sluice/bench-job.js';

const TICK_MS = 20;

export interface ProducerStats {
  sent: number;
  accepted: number;
  /** Calls answered with an error (each named in `errorSamples`, first few only). */
  refused: number;
  /** Requests that failed as a whole (connection errors, non-JSON answers). */
  failedRequests: number;
  inFlight: number;
  /** Jobs due by now and not yet sent (the gateways' backpressure on the open loop). */
  lag: number;
  errorSamples: string[];
}

export interface OpenLoopProducer {
  readonly stats: ProducerStats;
  start(): void;
  /** Stops sending; resolves when every request in flight is answered. */
  stop(): Promise<void>;
  /** Resolves once all `total` jobs were sent and answered (or `stop` was called). */
  readonly done: Promise<void>;
}

export interface OpenLoopOptions {
  gatewayUrls: readonly string[];
  apiKey: string;
  rate: number;
  total: number;
  maxInFlightPerGateway?: number;
  onAccepted(ids: readonly string[]): void;
}

interface CallAnswer {
  result?: { data?: { id?: string } };
  error?: { message?: string; data?: { code?: string } };
}

export function createOpenLoopProducer(opts: OpenLoopOptions): OpenLoopProducer {
  const maxInFlight = opts.maxInFlightPerGateway ?? 16;
  const inFlight = opts.gatewayUrls.map(() => 0);
  const stats: ProducerStats = {
    sent: 0,
    accepted: 0,
    refused: 0,
    failedRequests: 0,
    inFlight: 0,
    lag: 0,
    errorSamples: [],
  };
  let startedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let next = 0;
  let turn = 0;
  const pending = new Set<Promise<void>>();
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));

  const note = (text: string) => {
    if (stats.errorSamples.length < 10) stats.errorSamples.push(text.slice(0, 300));
  };

  async function send(g: number, from: number, n: number): Promise<void> {
    const t = Date.now();
    const body: Record<string, unknown> = {};
    for (let k = 0; k < n; k++) body[k] = { kind: BENCH_KIND, input: { i: from + k, t } };
    const path = Array.from({ length: n }, () => 'jobs.submit').join(',');
    try {
      const res = await fetch(`${opts.gatewayUrls[g]}/trpc/${path}?batch=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${opts.apiKey}` },
        body: JSON.stringify(body),
      });
      const answers = (await res.json()) as CallAnswer[];
      const ids: string[] = [];
      for (const a of answers) {
        const id = a.result?.data?.id;
        if (id) ids.push(id);
        else {
          stats.refused++;
          note(a.error?.data?.code ?? a.error?.message ?? JSON.stringify(a));
        }
      }
      stats.accepted += ids.length;
      opts.onAccepted(ids);
    } catch (error) {
      stats.failedRequests++;
      stats.refused += n;
      note(String(error));
    }
  }

  function tick(): void {
    if (stopped) return;
    const due = Math.min(opts.total, Math.floor(((Date.now() - startedAt) / 1000) * opts.rate));
    const gateways = opts.gatewayUrls.length;
    // Spread this tick's due jobs over the gateways, one batch each, while they have room.
    let owed = due - next;
    for (let g = 0; owed > 0 && g < gateways; g++) {
      const gw = (turn + g) % gateways;
      if (inFlight[gw]! >= maxInFlight) continue;
      const n = Math.min(MAX_BATCH_CALLS, Math.ceil(owed / (gateways - g)));
      const from = next;
      next += n;
      owed -= n;
      stats.sent += n;
      inFlight[gw]!++;
      stats.inFlight++;
      const p = send(gw, from, n).finally(() => {
        inFlight[gw]!--;
        stats.inFlight--;
        pending.delete(p);
        if (next >= opts.total && pending.size === 0) finish();
      });
      pending.add(p);
    }
    turn++;
    stats.lag = due - next;
    if (next >= opts.total) clearInterval(timer);
  }

  return {
    stats,
    done,
    start() {
      startedAt = Date.now();
      timer = setInterval(tick, TICK_MS);
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.all(pending);
      finish();
    },
  };
}
