// Restate 1.7, parent side. Every run starts its own restate-server (restate-server.ts: fresh
// log and state) whose CPU is the `engine` group and whose storage writes are reported per job.
// Restate pushes invocations to an HTTP/2 endpoint the worker child opens, so the queue is filled
// in `beforeGo`, once that endpoint exists: register it as a deployment, then N one-way sends
// through the ingress (HTTP/2, 32 in flight). The worker holds every invocation that arrives
// before `go` (at most the invoker's limit, about c). An invocation is done when the server has
// recorded its completion; `sys_invocation.completed_at` dates the last one.
import type { BenchAdapter, BenchServices, PrepareSpec, PreparedRun } from '../adapter.js';
import { epochToMono } from './pg-engine.js';
import { adminQuery, ingressSender, registerDeployment } from './restate-client.js';
import { RESTATE_SERVICE, type RestateChildConfig } from './restate-config.js';
import { restateBinary, startRestateServer } from './restate-server.js';
import { freePort } from '@sluice/testkit';

const WORKER_MODULE = new URL('../workers/restate.ts', import.meta.url).href;
const PREFILL_IN_FLIGHT = 32;
const SETTLE_POLL_MS = 25;

const binary = restateBinary();

async function fill(ingressUrl: string, jobs: number): Promise<void> {
  const sender = ingressSender(ingressUrl);
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: PREFILL_IN_FLIGHT }, async () => {
        while (next < jobs) await sender.send({ i: next++, t: 0 });
      }),
    );
  } finally {
    sender.close();
  }
}

async function prepare(_services: BenchServices, spec: PrepareSpec): Promise<PreparedRun> {
  if ('missing' in binary) throw new Error(binary.missing);
  const server = await startRestateServer(binary.path, spec.concurrency * spec.processes);
  const child: RestateChildConfig = {
    endpointPort: await freePort(),
    ingressUrl: server.ingressUrl,
  };
  const states = `SELECT status AS state, count(*) AS n FROM sys_invocation
                  WHERE target_service_name = '${RESTATE_SERVICE}' GROUP BY status`;
  return {
    child: { ...child },
    enginePids: [server.pid],
    async beforeGo() {
      await registerDeployment(server.adminUrl, `http://127.0.0.1:${child.endpointPort}`);
      if (spec.jobs > 0) await fill(server.ingressUrl, spec.jobs);
    },
    async settle() {
      for (;;) {
        const [row] = await adminQuery<{ done: number; last: string | null }>(
          server.adminUrl,
          `SELECT count(*) AS done, max(completed_at) AS last FROM sys_invocation
           WHERE target_service_name = '${RESTATE_SERVICE}' AND status = 'completed'`,
        );
        if (row && row.done >= spec.jobs && row.last) return epochToMono(Date.parse(row.last));
        await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
      }
    },
    async verify(expected) {
      const rows = await adminQuery<{ state: string; n: number }>(server.adminUrl, states);
      const counts = Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
      const jobs = Object.values(counts).reduce((a, b) => a + b, 0);
      const done = counts.completed ?? 0;
      const capped = expected.completed < expected.jobs;
      const ok = jobs === expected.jobs && (capped ? done >= expected.completed : done === jobs);
      return { ok, capped, expected, jobs, done, states: counts, dnsIsolated: server.dnsIsolated };
    },
    cleanup: () => server.stop(),
  };
}

export const restateAdapter: BenchAdapter = {
  id: 'restate',
  label: 'Restate',
  needs: [],
  packages: ['@restatedev/restate-server', '@restatedev/restate-sdk'],
  durableWork:
    "Restate's own log and state (RocksDB; the replicated loglet with fsync, one node here): the " +
    "invocation and its input, the run step's result as a journal entry (acknowledged once " +
    'logged), the completion; the journal kept for the retention period (1 day by default).',
  ...('missing' in binary ? { unavailable: binary.missing } : {}),
  queue: {
    consumerModule: WORKER_MODULE,
    producerModule: WORKER_MODULE,
    prepare,
    engineServer: true,
  },
};
