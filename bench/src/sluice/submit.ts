// Row 6: HTTP load on `POST /trpc/jobs.submit` (each request accepts one job: auth, validation,
// one transaction with the job, its events and its queue row) and, as the ceiling, on a bare tRPC
// mutation served by the same gateway process (`/bare/noop`, services/gateway-service.ts).
// autocannon runs in the parent on loopback; req/s counts 2xx answers only.
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { openDatabase } from '@sluice/storage';
import type { BenchServices, SubmitResult, SubmitSpec } from '../adapter.js';
import { BARE_PATH } from '../services/gateway-service.js';
import { BENCH_KIND } from './bench-job.js';
import { startGatewayRun } from './gateway-run.js';
import { cpuMsOf } from './proc-status.js';
import type { Storage } from './sluice-db.js';

/** Load before the clock, so the measured window does not include JIT warm-up (seconds). */
const warmupSeconds = (seconds: number) => Math.min(1, seconds / 4);

function load(
  url: string,
  apiKey: string,
  opts: { connections: number; duration: number },
): Promise<autocannon.Result> {
  return autocannon({
    url,
    method: 'POST',
    connections: opts.connections,
    duration: opts.duration,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ kind: BENCH_KIND, input: { i: 1, t: 0 } }),
  });
}

async function countJobs(dbUrl: string): Promise<number> {
  const database = openDatabase({ url: dbUrl, poolSize: 1 });
  try {
    const r = await sql<{ n: number | string }>`select count(*) as n from jobs`.execute(
      database.db,
    );
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await database.close();
  }
}

/** `path` is `/trpc/jobs.submit` for Sluice, BARE_PATH for the ceiling. */
export async function runSubmit(
  storage: Storage,
  path: string,
  services: BenchServices,
  spec: SubmitSpec,
): Promise<SubmitResult> {
  const run = await startGatewayRun(storage, services);
  try {
    const url = `${run.gateway.url}${path}`;
    const pid = run.gateway.pid;
    const warmup = await load(url, run.apiKey, {
      connections: spec.connections,
      duration: warmupSeconds(spec.seconds),
    });
    const cpuBefore = cpuMsOf(pid);
    const result = await load(url, run.apiKey, {
      connections: spec.connections,
      duration: spec.seconds,
    });
    const cpuMs = cpuMsOf(pid) - cpuBefore;
    const ok = result['2xx'];
    // Every accepted submit is a job row: a cross-check that 2xx means "accepted".
    const jobs = path === BARE_PATH ? undefined : await countJobs(run.dbUrl);
    return {
      requestsPerSec: ok / result.duration,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      // autocannon's `errors` already counts timeouts.
      errors: result.errors + result.non2xx,
      detail: {
        storage,
        gatewayPid: run.gateway.pid,
        path,
        durationS: result.duration,
        responses2xx: ok,
        non2xx: result.non2xx,
        connectionErrors: result.errors,
        timeouts: result.timeouts,
        latencyMs: {
          p90: result.latency.p90,
          p999: result.latency.p99_9,
          max: result.latency.max,
          mean: result.latency.average,
        },
        warmup2xx: warmup['2xx'],
        // = warmup2xx + responses2xx when every 2xx was an accepted job.
        jobRows: jobs,
        gatewayCpuMs: cpuMs,
        gatewayCpuMsPer1kRequests: (cpuMs * 1000) / Math.max(1, ok),
      },
    };
  } finally {
    await run.dispose();
  }
}

export const SUBMIT_PATH = '/trpc/jobs.submit';
