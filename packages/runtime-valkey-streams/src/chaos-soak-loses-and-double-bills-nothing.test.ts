// Catches what no single-fault test can: faults that meet. 4 Streams worker processes run paid
// jobs (ambiguous sync calls, retry-safe calls, pollable async calls, an asset per unit) on
// PostgreSQL while a worker is SIGKILLed every few seconds and started again, one is SIGSTOPped
// past its lease and woken, redis-server restarts without persistence and the Redis link is
// blackholed. Then every job must be terminal, no unit billed twice by the provider's own ledger,
// no orphan blob, no ghost row and no zombie write landed (see testing/chaos/chaos-audit.ts).
// PR tier: 500 jobs; `npm run chaos` runs 10,000 (CHAOS_JOBS picks the size).

import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatChaosTable, REQUIRED_ZEROS } from './testing/chaos/chaos-audit.js';
import { runChaos } from './testing/chaos/chaos-run.js';
import { recordFigures } from '@sluice/worker/conformance';
import { XP_DIALECT } from './testing/streams-xp-suite.js';

const JOBS = Number(process.env.CHAOS_JOBS ?? 500);
let db: TestDatabase | undefined;
beforeAll(async () => {
  db = await createTestDatabase(XP_DIALECT);
});
afterAll(async () => {
  await db?.dispose();
}, 120_000);

it(
  `chaos soak: ${JOBS} paid jobs under SIGKILL, SIGSTOP, Redis loss and a blackhole — nothing lost, billed twice, orphaned, ghosted or written by a zombie [${XP_DIALECT}]`,
  // 5-10 jobs a second on a loaded 2-core machine, plus start-up, the audit and teardown.
  { timeout: 180_000 + JOBS * 300 },
  async () => {
    if (!db) throw new Error('database not ready');
    const { figures } = await runChaos({ jobs: JOBS, database: db.database, dbUrl: db.url });
    console.log(`\nchaos soak, ${JOBS} jobs [${XP_DIALECT}]\n${formatChaosTable(figures)}\n`);
    const { examples: _, faults, byState, ...flat } = figures;
    recordFigures('chaos-soak', { dialect: XP_DIALECT, ...flat, ...faults, byState });
    // Every fault fired while work was in flight, or the zeros below prove nothing.
    expect(faults.sigkills).toBeGreaterThan(0);
    expect(faults.sigstops).toBeGreaterThan(0);
    expect(faults.redisRestarts).toBe(1);
    expect(faults.blackholes).toBe(1);
    expect(figures.providerBills).toBeGreaterThanOrEqual(JOBS);
    const zeros = Object.fromEntries(REQUIRED_ZEROS.map((k) => [k, figures[k]]));
    expect(zeros).toEqual(Object.fromEntries(REQUIRED_ZEROS.map((k) => [k, 0])));
  },
);
