// The crash-point matrix for provider calls (every crash point × every call class), shared by one
// test file per declaration class and per runtime (the table is crash-matrix-rows.ts; a runtime
// package passes its `InvariantRig`, the embedded runtime is the default). Each scenario: one `xp.paid` job; worker A (its own process)
// SIGKILLs itself at the crash point; worker B (loaded and waiting) takes over after the lease
// and finishes. Then the end state must be the table's, with zero double bills read from the fake
// provider's own ledger (its own process, fsync'd: it outlives the kill).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EMBEDDED_CAPABILITIES,
  isTerminalState,
  type JobState,
  type RuntimeCapabilities,
} from '@sluice/contracts';
import { createLocalBlobStore, getJobById, listEvents, type DialectName } from '@sluice/storage';
import { TEST_DIALECTS } from '@sluice/storage/testing';
import {
  spawnNode,
  startFakeProvider,
  waitFor,
  type ChildHandle,
  type FakeProvider,
} from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CrashPoint } from '../hooks.js';
import { auditAssets } from './asset-fixture.js';
import { billsByUnit } from './paid-harness.js';
import { paidJob } from './paid-job.js';
import {
  describeOnRig,
  embeddedRig,
  submitPaidJobsVia,
  type InvariantRig,
} from './invariant-rig.js';
import type { MatrixRow } from './crash-matrix-rows.js';

export type MatrixCall = 'sync' | 'async' | 'safe';
/** A crash point, or the provider committing and dropping the connection with no crash. */
export type MatrixPoint = CrashPoint | 'commit-then-drop';

export interface Expected {
  state: JobState;
  units: number;
  /** Billed calls per unit (u0, u1, …), from the provider's ledger. */
  billed: number[];
  /** Requests that reached the provider, billed or not. */
  requests: number;
  attempts: number;
  /**
   * Attempts where a claim does not start the job (`startsOnClaim` false: the start is written
   * with the attempt's first write) and A died before writing anything: B's attempt is the
   * first the database sees. Unset: `attempts` holds for every runtime.
   */
  attemptsUnstartedClaim?: number | undefined;
  /** Units whose code worker B ran (the rest came from checkpoints, or B ran nothing). */
  bExecutes?: string[] | undefined;
  /** Distinct external jobs the provider created (async-job calls). */
  externalJobs?: number | undefined;
  /** Requests the provider answered from an earlier one with the same idempotency key. */
  deduplicated?: number | undefined;
  /** FINALIZE lines of A and B together. */
  finalizeRuns?: number | undefined;
  /** The job writes one asset per unit: exactly this many rows, no ghost, no orphan, staging swept. */
  assets?: number | undefined;
}

const entry = new URL('./paid-worker-child.ts', import.meta.url);

/** The attempts the table expects on this runtime (see `attemptsUnstartedClaim`). */
function attemptsOn(runtime: CrashMatrixRuntime, e: Expected): number {
  return (runtime.capabilities.startsOnClaim ? undefined : e.attemptsUnstartedClaim) ?? e.attempts;
}

function summary(
  runtime: CrashMatrixRuntime,
  call: MatrixCall,
  point: MatrixPoint,
  e: Expected,
  ms: number,
): string {
  return `${call} × ${point}: ${e.state}, attempts ${attemptsOn(runtime, e)}, billed [${e.billed.join(',')}], requests ${e.requests} (${ms} ms)`;
}

/** Where the matrix runs: the embedded runtime on every test dialect unless told otherwise. */
export interface CrashMatrixRuntime {
  /** The runtime's name in the suite title and the figures line. */
  name: string;
  makeRig: () => Promise<InvariantRig>;
  /** The transport's flags the table reads (where its expectations differ by a real reason). */
  capabilities: Pick<RuntimeCapabilities, 'startsOnClaim'>;
  dialects?: readonly DialectName[] | undefined;
}

const EMBEDDED: CrashMatrixRuntime = {
  name: 'embedded',
  makeRig: embeddedRig,
  capabilities: EMBEDDED_CAPABILITIES,
};

export function describeCrashMatrix(
  call: MatrixCall,
  rows: readonly MatrixRow[],
  runtime: CrashMatrixRuntime = EMBEDDED,
): void {
  const title = `crash-point matrix: ${call}${runtime === EMBEDDED ? '' : ` (${runtime.name})`}`;
  describeOnRig(title, runtime.makeRig, runtime.dialects ?? TEST_DIALECTS, (ctx) => {
    let provider: FakeProvider;
    let taker: ChildHandle;
    let dir: string;
    let round = 0;
    const figures: string[] = [];
    // Workers A of the next two scenarios load while this one runs: start-up is most of the cost.
    const crashers = new Map<number, Promise<ChildHandle>>();
    const env = () => ({
      ...ctx().rig.childEnv(),
      DB_URL: ctx().url,
      PROVIDER_URL: provider.url,
      LEASE_MS: '1500',
      BLOB_DIR: join(dir, 'blobs'),
      STAGING_SWEEP_MS: '300',
    });
    const crasher = (k: number): Promise<ChildHandle> => {
      let handle = crashers.get(k);
      if (!handle) {
        const point = rows[k]?.point;
        handle = spawnNode(entry, {
          env: {
            ...env(),
            WORKER_ID: `a${k}`,
            GO_FILE: join(dir, `a-go-${k}`),
            ...(point && point !== 'commit-then-drop' ? { CRASHPOINTS: `${point}@1` } : {}),
          },
          readyLine: /^LOADED$/m,
        });
        crashers.set(k, handle);
      }
      return handle;
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'sluice-matrix-'));
      provider = await startFakeProvider({ asyncDelayMs: 60 });
      // Worker B takes over in every scenario: one process, one worker per round.
      taker = await spawnNode(entry, {
        env: { ...env(), WORKER_ID: 'b', ROUNDS_DIR: dir },
        readyLine: /^LOADED$/m,
      });
    });
    afterAll(async () => {
      console.log(`[${runtime.name}/${ctx().dialect}] crash matrix\n  ${figures.join('\n  ')}`);
      await taker?.kill();
      for (const c of crashers.values()) await (await c.catch(() => undefined))?.kill();
      await provider?.[Symbol.asyncDispose]();
      rmSync(dir, { recursive: true, force: true });
    });

    for (const [k, { point, expected }] of rows.entries()) {
      const title = `${point} → ${expected.state}, billed [${expected.billed.join(',')}]`;
      it(title, { timeout: 60_000 }, async () => {
        const started = Date.now();
        const { database, rig } = ctx();
        const input = { call, units: expected.units, asset: expected.assets !== undefined };
        const [id] = (await submitPaidJobsVia(rig, database, [input])) as [string];
        const crashes = point !== 'commit-then-drop';
        if (!crashes) await provider.setFaults([{ jobId: id, fault: 'commit-then-drop' }]);
        const a = await crasher(k);
        // Loads while this scenario runs; a failed spawn fails the next scenario, not this one.
        for (const next of [k + 1, k + 2]) if (next < rows.length) crasher(next).catch(() => {});
        writeFileSync(join(dir, `a-go-${k}`), '');
        if (crashes) {
          const exit = await Promise.race([
            a.exited,
            new Promise<never>((_, reject) =>
              setTimeout(() => reject(new Error(`A did not crash:\n${a.output()}`)), 30_000),
            ),
          ]);
          expect(exit.signal, a.output()).toBe('SIGKILL');
        } else {
          await waitFor(async () => isTerminalState(await stateOf(id)), { timeoutMs: 20_000 });
          await a.kill();
        }
        // B's round starts only now: A's lease must expire before B may take the job.
        const n = ++round;
        const from = taker.output().length;
        writeFileSync(join(dir, `go-${n}`), '');
        try {
          await taker.waitForLine(new RegExp(`^READY ${n}$`, 'm'), 20_000);
          await waitFor(async () => isTerminalState(await stateOf(id)), {
            timeoutMs: 30_000,
            message: `job terminal\n--- A ---\n${a.output()}\n--- B ---\n${taker.output()}`,
          });
          if (point === 'after-terminal-before-ack') {
            // B's redelivery finds the job finished and only acknowledges it: the transport
            // holds nothing of the kind any more (earlier scenarios' jobs are all finished).
            const { database: db, rig: r } = ctx();
            await waitFor(async () => (await r.outstanding(db, paidJob.kind)) === 0, {
              timeoutMs: 20_000,
              message: 'redelivery acknowledged',
            });
          }
          // B ran unit code, or finalize (A's FINALIZE line plus B's).
          const bPrints = (expected.bExecutes?.length ?? 0) > 0 || (expected.finalizeRuns ?? 0) > 1;
          if (bPrints) {
            // B's stdout can trail the database on a loaded machine: its SETTLED line comes
            // after every EXECUTE and FINALIZE line of the job, so once it is here they all are
            // (a during-finalize row on SQLite counted 1 FINALIZE line of 2 without this wait).
            await taker.waitForLine(new RegExp(`^SETTLED ${id} `, 'm'), 20_000);
          }
          await check({ id, expected, aOutput: a.output(), bOutput: taker.output().slice(from) });
        } finally {
          // Even after a failure: a running round would take the next scenario's job from A.
          writeFileSync(join(dir, `stop-${n}`), '');
          await taker.waitForLine(new RegExp(`^STOPPED ${n}$`, 'm'), 20_000);
        }
        figures.push(summary(runtime, call, point, expected, Date.now() - started));
      });
    }

    async function stateOf(id: string): Promise<JobState> {
      return (await getJobById(ctx().database.db, id))?.state ?? 'running';
    }
    async function check(c: { id: string; expected: Expected; aOutput: string; bOutput: string }) {
      const { id, expected } = c;
      const db = ctx().database.db;
      const row = await getJobById(db, id);
      const trace = `--- A ---\n${c.aOutput}\n--- B ---\n${c.bOutput}`;
      expect(row?.state, trace).toBe(expected.state);
      expect(row?.attempts, trace).toBe(attemptsOn(runtime, expected));

      const records = await provider.ledger({ jobId: id });
      const bills = billsByUnit(records);
      const billed = Array.from({ length: expected.units }, (_, i) => bills.get(`u${i}`) ?? 0);
      expect(billed).toEqual(expected.billed);
      // Zero double bills, whatever the scenario.
      for (const n of bills.values()) expect(n).toBeLessThanOrEqual(1);
      expect(records).toHaveLength(expected.requests);
      if (expected.externalJobs !== undefined) {
        const external = new Set(
          records.flatMap((r) => (r.externalJobId ? [r.externalJobId] : [])),
        );
        expect(external.size).toBe(expected.externalJobs);
      }
      if (expected.deduplicated !== undefined) {
        expect(records.filter((r) => r.deduplicated)).toHaveLength(expected.deduplicated);
      }

      const events = await listEvents(db, id);
      expect(events.filter((e) => 'to' in e && isTerminalState(e.to))).toHaveLength(1);
      if (expected.bExecutes) {
        const ran = [...c.bOutput.matchAll(/EXECUTE \S+ (\S+) /g)].map((m) => m[1]);
        expect(ran).toEqual(expected.bExecutes);
      }
      if (expected.finalizeRuns !== undefined) {
        expect(`${c.aOutput}${c.bOutput}`.match(/FINALIZE /g) ?? []).toHaveLength(
          expected.finalizeRuns,
        );
      }
      if (expected.assets !== undefined) {
        const blobs = createLocalBlobStore(join(dir, 'blobs'));
        const job = { id, tenantId: 'acme' };
        // The crashed attempt's staging blob is the sweeper's (B sweeps every 300 ms).
        await waitFor(
          async () => (await auditAssets(ctx().database, blobs, job)).staging.length === 0,
          {
            timeoutMs: 15_000,
            message: `staging swept\n${trace}`,
          },
        );
        const audit = await auditAssets(ctx().database, blobs, job);
        expect(audit.rows, trace).toHaveLength(expected.assets);
        expect(audit.ghosts).toEqual([]);
        expect(audit.orphans).toEqual([]);
      }
      if (expected.bExecutes && attemptsOn(runtime, expected) > 1) {
        // B's unit_done events mark the units it took from checkpoints.
        const reused = events.flatMap((e) =>
          e.type === 'unit_done' && e.reused ? [e.unitKey] : [],
        );
        const all = Array.from({ length: expected.units }, (_, i) => `u${i}`);
        expect(reused.sort()).toEqual(all.filter((u) => !expected.bExecutes?.includes(u)));
      }
    }
  });
}
