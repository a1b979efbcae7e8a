// Dev tool: how often jobs held by a `maxRunning` start limit are claimed while the one slot
// stays taken for <seconds>, and how long the slot stays idle once given back (release → the
// first held job's handler start), on PostgreSQL through the embedded runtime. Two runs: the
// product's settings, and `limitHoldMs: 1000, limitHoldMaxMs: 1000` (the fixed 1 s hold delay of
// before, where holds use it: a runtime whose transport brings held jobs back; on the embedded
// runtime a held job waits on the key's waiting list either way). Claims are counted by the
// held jobs' epochs (each claim raises it by one), so the figure does not depend on the load;
// the gap does.
//   npx tsx --conditions=@sluice/source src/tools/held-claims.ts [seconds] [held jobs]
import { defineJob, formatJobId } from '@sluice/contracts';
import { acceptJobs, getJobsByIds, migrate, openDatabase } from '@sluice/storage';
import { createPgDatabase, waitFor } from '@sluice/testkit';
import { createEmbeddedRuntime, createWorker, defineHandler } from '@sluice/worker';
import { z } from 'zod';

const seconds = Number(process.argv[2] ?? 30);
const heldJobs = Number(process.argv[3] ?? 1);
const job = defineJob({
  kind: 'held.claims',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ ok: z.boolean() }),
  maxAttempts: 1,
  limits: { maxRunning: 1 },
});

interface Run {
  /** Claims of the held jobs while the slot stayed taken (their first claim included). */
  claims: number;
  claimsPerSecond: number;
  /** Release of the slot → the first held job's handler start. */
  gapMs: number;
}

async function heldClaims(holdMaxMs: number | undefined): Promise<Run> {
  const pg = await createPgDatabase({ prefix: 'heldclaims' });
  const database = openDatabase({ url: pg.url, poolSize: 4 });
  try {
    await migrate(database);
    let started = 0;
    let firstHeldAt = 0;
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((r) => (release = r));
    const handler = defineHandler(job, {
      prepare: () => [{ key: 'u', input: 0 }],
      execute: async (_u, c) => {
        started++;
        if (c.input.n === 0) await blocked;
        else if (firstHeldAt === 0) firstHeldAt = performance.now();
        return 1;
      },
      finalize: () => ({ ok: true }),
    });
    const row = (n: number) => ({
      id: formatJobId('v1'),
      tenantId: 't',
      kind: job.kind,
      version: 'v1',
      input: { n },
      inputHash: `h${n}`,
      maxAttempts: 1,
      outcome: { to: 'queued' as const },
    });
    const blocker = row(0);
    const held = Array.from({ length: heldJobs }, (_, i) => row(i + 1));
    await acceptJobs(database, [blocker]);
    const worker = createWorker({
      jobs: { [job.kind]: job },
      handlers: { [job.kind]: { v1: handler } },
      database,
      concurrency: 4,
      sweepEveryMs: 0,
      metrics: { processMetrics: false },
      runtime: (c) => createEmbeddedRuntime({ database, ...c }),
      ...(holdMaxMs === undefined ? {} : { limitHoldMs: holdMaxMs, limitHoldMaxMs: holdMaxMs }),
    } as Parameters<typeof createWorker>[0]);
    await worker.start();
    try {
      await waitFor(() => started === 1, { timeoutMs: 20_000, message: 'blocker started' });
      await acceptJobs(database, held);
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const rows = await getJobsByIds(
        database.db,
        held.map((h) => h.id),
      );
      const claims = [...rows.values()].reduce((sum, r) => sum + r.epoch, 0);
      const releasedAt = performance.now();
      release();
      await waitFor(() => firstHeldAt > 0, { timeoutMs: 120_000, message: 'a held job started' });
      return {
        claims,
        claimsPerSecond: Math.round((claims / seconds) * 100) / 100,
        gapMs: Math.round(firstHeldAt - releasedAt),
      };
    } finally {
      release();
      await worker.stop({ deadlineMs: 5_000 });
    }
  } finally {
    await database.close();
    await pg.drop();
  }
}

const product = await heldClaims(undefined);
const fixed = await heldClaims(1_000);
console.log(JSON.stringify({ seconds, heldJobs, product, fixedOneSecond: fixed }));
