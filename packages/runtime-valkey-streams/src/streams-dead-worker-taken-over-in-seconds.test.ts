// Catches a dead Streams worker's entries waiting in its pending list until their claims idle out
// (the lease, 30 s here) although its death is known in seconds: worker A (its own process)
// SIGKILLs itself mid-job after a unit's paid call is checkpointed; worker B, a process with
// another id started after the kill, must XCLAIM A's entries once A's liveness beat lapsed, take
// the jobs at a new epoch and finish them with every unit billed exactly once (the fake
// provider's own ledger).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getJobsByIds } from '@sluice/storage';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import { spawnNode, startFakeProvider, waitFor, type FakeProvider } from '@sluice/testkit';
import { PAID_WORKER_CHILD, paidJob, submitPaidJobs } from '@sluice/worker/conformance';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createStreamsFixture, type StreamsFixture } from './testing/streams-fixture.js';
import { PAID_CHILD_RUNTIME } from './testing/paid-runtime-entry.js';
import { XP_DIALECT } from './testing/streams-xp-suite.js';

const LEASE_MS = 30_000;
const DEAD_AFTER_MS = 2000;
/** Well under the lease: only liveness can make it. */
const TAKEOVER_BOUND_MS = 12_000;

let fx: StreamsFixture;
let db: TestDatabase;
let provider: FakeProvider;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-liveness-'));
  [fx, db, provider] = await Promise.all([
    createStreamsFixture(),
    createTestDatabase(XP_DIALECT),
    startFakeProvider({ asyncDelayMs: 60 }),
  ]);
});
afterAll(async () => {
  await provider?.[Symbol.asyncDispose]();
  await fx?.dispose();
  await db?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

it(
  `SIGKILL mid-job: another Streams worker claims its entries within seconds, each unit billed once [${XP_DIALECT}]`,
  { timeout: 90_000 },
  async () => {
    const { database, url } = db;
    const env = {
      DB_URL: url,
      PROVIDER_URL: provider.url,
      RUNTIME_MODULE: PAID_CHILD_RUNTIME.pathname,
      REDIS_URL: fx.server.url,
      LEASE_MS: String(LEASE_MS),
      LIVENESS_MS: '250',
      DEAD_AFTER_MS: String(DEAD_AFTER_MS),
      // One job at a time: A dies after its first unit's call was checkpointed, none in flight.
      CONCURRENCY: '1',
    };
    const ids = await submitPaidJobs(
      database,
      [1, 2].map(() => ({ call: 'sync' as const, units: 3 })),
      () => Promise.resolve(),
    );
    await fx.dispatch(
      ids.map((jobId) => ({ jobId, kind: paidJob.kind, version: 'v1', tenantId: 'acme' })),
    );
    const goB = join(dir, 'go-b');
    // B loads first (start-up is most of its cost) and starts only after A is dead.
    await using b = await spawnNode(PAID_WORKER_CHILD, {
      env: { ...env, WORKER_ID: 'streams-b', GO_FILE: goB },
      readyLine: /^LOADED$/m,
    });
    const a = await spawnNode(PAID_WORKER_CHILD, {
      env: { ...env, WORKER_ID: 'streams-a', CRASHPOINTS: 'after-unit-checkpoint@1' },
      readyLine: /READY/,
    });
    const exit = await Promise.race([
      a.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`A did not crash:\n${a.output()}`)), 30_000),
      ),
    ]);
    const killedAt = Date.now();
    expect(exit.signal, a.output()).toBe('SIGKILL');
    const held = [...(await getJobsByIds(database.db, ids)).values()].filter(
      (r) => r.state === 'running',
    );
    expect(held.length, 'A died holding running jobs').toBeGreaterThan(0);
    writeFileSync(goB, '');
    const allDone = async () =>
      [...(await getJobsByIds(database.db, ids)).values()].every((r) => r.state === 'succeeded');
    await waitFor(allDone, { timeoutMs: TAKEOVER_BOUND_MS }).catch((error: unknown) => {
      throw new Error(
        `B did not finish A's jobs within ${TAKEOVER_BOUND_MS} ms of the kill (lease ${LEASE_MS} ms): ${String(error)}\n--- A ---\n${a.output()}\n--- B ---\n${b.output()}`,
      );
    });
    const resumedIn = Date.now() - killedAt;
    const rows = await getJobsByIds(database.db, ids);
    for (const h of held) {
      const row = rows.get(h.id);
      expect(row?.epoch).toBeGreaterThan(h.epoch);
      expect(Date.parse(row?.finishedAt ?? '')).toBeLessThan(Date.parse(h.leaseUntil ?? ''));
    }
    for (const id of ids) {
      const bills = new Map<string, number>();
      for (const r of await provider.ledger({ jobId: id }))
        if (r.billed) bills.set(r.unitKey, (bills.get(r.unitKey) ?? 0) + 1);
      expect(
        [0, 1, 2].map((i) => bills.get(`u${i}`) ?? 0),
        `ledger of ${id}`,
      ).toEqual([1, 1, 1]);
    }
    await waitFor(async () => (await fx.pendingCount(fx.keys.jobs(paidJob.kind, 'v1'))) === 0, {
      message: 'PEL drained',
    });
    console.log(`[streams/${XP_DIALECT}] SIGKILL -> all jobs done in ${resumedIn} ms`);
    await b.stop();
  },
);
