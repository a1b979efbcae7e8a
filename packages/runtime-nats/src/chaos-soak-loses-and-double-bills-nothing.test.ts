// Catches what no single-fault test can: faults that meet. 4 NATS worker processes run paid jobs
// (ambiguous sync calls, retry-safe calls, pollable async calls, an asset per unit) on PostgreSQL
// while a worker is SIGKILLed every few seconds and started again, one is SIGSTOPped past its
// lease and woken, nats-server restarts on an emptied store and the workers' NATS link is
// blackholed. Then every job must be terminal, no unit billed twice by the provider's own ledger,
// no orphan blob, no ghost row and no zombie write landed (see testing/chaos/chaos-audit.ts).
// PR tier: 500 jobs; `npm run chaos -- --runtime nats` runs 10,000 (CHAOS_JOBS picks the size).

import { recordFigures } from '@sluice/worker/conformance';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatChaosTable, REQUIRED_ZEROS } from './testing/chaos/chaos-audit.js';
import { runChaos } from './testing/chaos/chaos-run.js';

const JOBS = Number(process.env.CHAOS_JOBS ?? 500);
const DIALECT = 'postgres';
let db: TestDatabase | undefined;
beforeAll(async () => {
  db = await createTestDatabase(DIALECT);
});
afterAll(async () => {
  await db?.dispose();
}, 120_000);

it(
  `chaos soak: ${JOBS} paid jobs under SIGKILL, SIGSTOP, NATS loss and a blackhole — nothing lost, billed twice, orphaned, ghosted or written by a zombie [${DIALECT}]`,
  { timeout: 180_000 + JOBS * 300 },
  async () => {
    if (!db) throw new Error('database not ready');
    const { figures } = await runChaos({ jobs: JOBS, database: db.database, dbUrl: db.url });
    console.log(`\nchaos soak (nats), ${JOBS} jobs [${DIALECT}]\n${formatChaosTable(figures)}\n`);
    const { examples: _, faults, byState, ...flat } = figures;
    recordFigures('nats-chaos-soak', { dialect: DIALECT, ...flat, ...faults, byState });
    // Every fault fired while work was in flight, or the zeros below prove nothing.
    expect(faults.sigkills).toBeGreaterThan(0);
    expect(faults.sigstops).toBeGreaterThan(0);
    expect(faults.serverRestarts).toBe(1);
    expect(faults.blackholes).toBe(1);
    expect(figures.providerBills).toBeGreaterThanOrEqual(JOBS);
    const zeros = Object.fromEntries(REQUIRED_ZEROS.map((k) => [k, figures[k]]));
    expect(zeros).toEqual(Object.fromEntries(REQUIRED_ZEROS.map((k) => [k, 0])));
  },
);
