// Catches what no single-fault test can: faults that meet. 4 worker processes on a runtime's
// consumer run paid jobs (ambiguous sync calls, retry-safe calls, pollable async calls, an asset
// per unit) on PostgreSQL while a worker is SIGKILLed every few seconds and started again, one is
// SIGSTOPped past its lease and woken, the broker's server restarts empty and the workers' link
// to it is blackholed. Then every job must be terminal, no unit billed twice by the provider's own
// ledger, no orphan blob, no ghost row and no zombie write landed (see chaos-audit.ts). Each
// runtime package runs it from its `chaos-soak-loses-and-double-bills-nothing.test.ts` with its
// adapter; CHAOS_JOBS picks the size (500 in `npm test`, `npm run chaos` runs 10,000).

import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import type { DialectName } from '@sluice/storage';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordFigures } from '../figures.js';
import type { ChaosAdapter } from './chaos-adapter.js';
import { formatChaosTable, REQUIRED_ZEROS } from './chaos-audit.js';
import { runChaos } from './chaos-run.js';

export interface ChaosSoakOptions {
  /** The database the soak runs on (PostgreSQL where the machine has it). */
  dialect: DialectName;
  /** The scenario name of the recorded figures. */
  scenario: string;
}

export function chaosSoak(adapter: ChaosAdapter, opts: ChaosSoakOptions): void {
  const jobs = Number(process.env.CHAOS_JOBS ?? 500);
  const { dialect } = opts;
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await db?.dispose();
  }, 120_000);

  it(
    `chaos soak: ${jobs} paid jobs under SIGKILL, SIGSTOP, ${adapter.broker} loss and a blackhole — nothing lost, billed twice, orphaned, ghosted or written by a zombie [${dialect}]`,
    // 5-10 jobs a second on a loaded 2-core machine, plus start-up, the audit and teardown.
    { timeout: 180_000 + jobs * 300 },
    async () => {
      if (!db) throw new Error('database not ready');
      const { figures } = await runChaos(adapter, { jobs, database: db.database, dbUrl: db.url });
      const table = formatChaosTable(figures, adapter.broker);
      console.log(`\nchaos soak (${adapter.name}), ${jobs} jobs [${dialect}]\n${table}\n`);
      const { examples: _, faults, byState, ...flat } = figures;
      recordFigures(opts.scenario, { dialect, ...flat, ...faults, byState });
      // Every fault fired while work was in flight, or the zeros below prove nothing.
      expect(faults.sigkills).toBeGreaterThan(0);
      expect(faults.sigstops).toBeGreaterThan(0);
      expect(faults.serverRestarts).toBe(1);
      expect(faults.blackholes).toBe(1);
      expect(figures.providerBills).toBeGreaterThanOrEqual(jobs);
      const zeros = Object.fromEntries(REQUIRED_ZEROS.map((k) => [k, figures[k]]));
      expect(zeros).toEqual(Object.fromEntries(REQUIRED_ZEROS.map((k) => [k, 0])));
    },
  );
}
