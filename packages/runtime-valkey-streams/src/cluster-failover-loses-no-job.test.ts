// Redis Cluster, a master SIGKILLed mid-run: a real 3-master + 3-replica cluster, the gateway's
// Streams half (dispatcher, fair feeder, reconciler, tailer) in this process and 2 paid worker
// processes on PostgreSQL, jobs of 4 kinds (so several hash slots and masters). When a quarter of
// the jobs settled, the master serving `xp.paid`'s slot is killed, the last third of the jobs is
// submitted at once as by a gateway that dies before dispatching (outbox rows only, for the
// reconciler), and the replica takes over. Then
// nothing may be lost (every job `succeeded`, one terminal event each) and the provider's own
// ledger may bill no unit twice (`auditChaos`). Entries the dead master had not replicated yet
// are dispatched again from the database by the reconciler's sweep. Figures: failover time,
// kill → first job of the killed slot settled again, kill → all done.
// `npm run test:cluster` runs it (it is not in the package's default run: ~1 min of 2 cores).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TERMINAL_STATES } from '@sluice/contracts';
import { createLocalBlobStore } from '@sluice/storage';
import { createTestDatabase } from '@sluice/storage/testing';
import { sleep, spawnNode, startFakeProvider, waitFor, type ChildHandle } from '@sluice/testkit';
import { auditChaos, chaosInput } from '@sluice/worker/chaos';
import {
  recordFigures,
  submitThroughOutbox,
  terminalEventCounts,
} from '@sluice/worker/conformance';
import { expect, it } from 'vitest';
import { createStreamsGatewayRuntime } from './gateway/create-streams-gateway-runtime.js';
import { createStreamKeys } from './keys.js';
import { startRedisCluster } from './testing/redis-cluster.js';
import { XP_DIALECT } from './testing/streams-xp-suite.js';

const entry = new URL('./testing/cluster-paid-worker-child.ts', import.meta.url);
// Their hash tags fall on all three masters' slot ranges (two on the one that is killed).
const KINDS = ['xp.paid', 'xp.paidb', 'xp.paidd', 'xp.paide'];
const PER_KIND = Number(process.env.CLUSTER_JOBS_PER_KIND ?? 75);

it(
  `a cluster master killed mid-run loses no job and bills no unit twice [${XP_DIALECT}]`,
  { timeout: 180_000 },
  async () => {
    const cluster = await startRedisCluster({ nodeTimeoutMs: 1000 });
    const db = await createTestDatabase(XP_DIALECT);
    const provider = await startFakeProvider({ asyncDelayMs: 300 });
    const dir = mkdtempSync(join(tmpdir(), 'sluice-cluster-blobs-'));
    const keys = createStreamKeys();
    const { database } = db;
    const gateway = createStreamsGatewayRuntime({
      redisUrl: cluster.url,
      database,
      // Quick ticks: an entry lost with the unreplicated tail is found by the safety sweep.
      reconciler: {
        tickMs: 250,
        outboxGraceMs: 1000,
        sweepEveryMs: 1000,
        quietMs: 30_000,
        leasePassedMs: 3000,
      },
    });
    const workers: ChildHandle[] = [];
    try {
      const masterOfKind = new Map<string, number>();
      for (const k of KINDS) masterOfKind.set(k, await cluster.masterOf(keys.jobs(k, 'v1')));
      // The kinds spread over more than one master: a failover leaves other slots serving.
      expect(new Set(masterOfKind.values()).size).toBeGreaterThan(1);
      const victim = masterOfKind.get('xp.paid') as number;
      const victimKinds = KINDS.filter((k) => masterOfKind.get(k) === victim);

      for (const id of ['cl-1', 'cl-2']) {
        workers.push(
          await spawnNode(entry, {
            env: {
              DB_URL: db.url,
              REDIS_URL: cluster.url,
              PROVIDER_URL: provider.url,
              BLOB_DIR: dir,
              WORKER_ID: id,
              KINDS: KINDS.join(','),
              LEASE_MS: '3000',
            },
            readyLine: /READY /,
          }),
        );
      }
      const dispatch = (p: Parameters<typeof gateway.dispatcher.dispatch>[0]) =>
        gateway.dispatcher.dispatch(p);
      const ids: string[] = [];
      const kindOf = new Map<string, string>();
      const started = Date.now();
      // Two thirds before the kill; the rest while the master is down, through a gateway that
      // dies before its dispatch: only their outbox rows carry them on, and the reconciler hands
      // them out in batches across kinds (so across slots, one being failed over).
      const died = () => Promise.reject(new Error('gateway died before its dispatch'));
      const submit = async (count: number, via: typeof dispatch) => {
        for (const kind of KINDS) {
          const got = await submitThroughOutbox(
            database,
            via,
            {
              kind,
              count,
              input: (n) => chaosInput(ids.length + n),
              inputHash: (_n, jobId) => jobId,
            },
            { giveUpAfterMs: 3000 },
          );
          for (const id of got) kindOf.set(id, kind);
          ids.push(...got);
        }
      };
      const late = Math.floor(PER_KIND / 3);
      await submit(PER_KIND - late, dispatch);
      const settledTimes = async () => {
        const rows = await database.db
          .selectFrom('jobs')
          .select(['id', 'state', 'kind'])
          .where('state', 'in', TERMINAL_STATES as readonly string[] as never)
          .execute();
        return rows;
      };
      await waitFor(async () => (await settledTimes()).length >= (PER_KIND * KINDS.length) / 4, {
        timeoutMs: 60_000,
        message: 'a quarter settled',
      });
      const settledAtKill = (await settledTimes()).length;
      await cluster.kill(victim);
      const killedAt = Date.now();
      // Watched from the kill on, while the late jobs are submitted.
      const failover = cluster
        .waitForFailover(keys.jobs('xp.paid', 'v1'), victim)
        .then((port) => ({ port, ms: Date.now() - killedAt }));
      const before = new Set(ids);
      // Recovery of the killed slots: the first late job of their kinds settled. It was submitted
      // after the kill, so its entry can only have been written to (and read from) the promoted
      // replica.
      let firstAgainMs = -1;
      let allDoneMs = -1;
      const watch = (async () => {
        while (Date.now() - killedAt < 120_000) {
          const rows = await settledTimes();
          if (
            firstAgainMs < 0 &&
            rows.some((r) => victimKinds.includes(r.kind) && !before.has(r.id))
          )
            firstAgainMs = Date.now() - killedAt;
          if (rows.length >= PER_KIND * KINDS.length && firstAgainMs >= 0) {
            allDoneMs = Date.now() - killedAt;
            return;
          }
          await sleep(50);
        }
      })();
      await submit(late, died);
      const lateSubmittedMs = Date.now() - killedAt;
      const { port: promoted, ms: failoverMs } = await failover;
      await watch;
      expect(allDoneMs, 'every job settled within 120 s of the kill').toBeGreaterThan(0);
      const states = await database.db.selectFrom('jobs').select(['state']).execute();
      const byState: Record<string, number> = {};
      for (const s of states) byState[s.state] = (byState[s.state] ?? 0) + 1;
      const figures = await auditChaos({
        database,
        blobs: createLocalBlobStore(dir),
        ledger: provider.readLedgerFile(),
        ids,
        faults: { sigkills: 0, sigstops: 0, serverRestarts: 1, blackholes: 0, redispatched: 0 },
        runMs: Date.now() - started,
      });
      const terminal = await terminalEventCounts(database, ids);
      recordFigures('cluster-master-failover', {
        dialect: XP_DIALECT,
        jobs: ids.length,
        kinds: KINDS.length,
        masters_used: new Set(masterOfKind.values()).size,
        killed_kinds: victimKinds,
        settled_at_kill: settledAtKill,
        failover_ms: failoverMs,
        kill_to_first_late_job_of_killed_slots_ms: firstAgainMs,
        kill_to_all_done_ms: allDoneMs,
        promoted_port: promoted,
        submitted_during_failover: late * KINDS.length,
        late_submit_ms: lateSubmittedMs,
        reconciler: gateway.reconciler?.stats,
        lost: figures.lost,
        double_billed: figures.doubleBilled,
        by_state: byState,
        provider_bills: figures.providerBills,
      });
      expect(byState).toEqual({ succeeded: ids.length });
      expect(figures.lost).toBe(0);
      expect(figures.doubleBilled).toBe(0);
      expect(terminal).toEqual(ids.map(() => 1));
      expect(firstAgainMs).toBeGreaterThan(0);
    } finally {
      await Promise.all(workers.map((w) => w.stop(5000)));
      await gateway.close();
      await cluster.dispose();
      await provider[Symbol.asyncDispose]();
      await db.dispose();
      rmSync(dir, { recursive: true, force: true });
      await sleep(0);
    }
  },
);
