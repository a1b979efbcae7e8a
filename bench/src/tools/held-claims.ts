// Dev tool: how often a job held by a `maxRunning` start limit is claimed while the one slot stays
// taken for <seconds>, with the product's hold delays (back-off 1 s..5 s) and with the cap set to
// the base (`limitHoldMaxMs: 1000`, the fixed 1 s delay of before), on PostgreSQL through the
// embedded runtime. Claims are counted by the held job's epoch (each claim raises it by one), so
// the figure does not depend on the machine's load.
//   npx tsx --conditions=@sluice/source src/tools/held-claims.ts [seconds]
import { defineJob, formatJobId } from '@sluice/contracts';
import { acceptJobs, getJobsByIds, migrate, openDatabase } from '@sluice/storage';
import { createPgDatabase, waitFor } from '@sluice/testkit';
import { createEmbeddedRuntime, createWorker, defineHandler } from '@sluice/worker';
import { z } from 'zod';

const seconds = Number(process.argv[2] ?? 30);
const job = defineJob({
  kind: 'held.claims',
  versions: { current: 'v1' },
  input: z.object({ n: z.number().int() }),
  output: z.object({ ok: z.boolean() }),
  maxAttempts: 1,
  limits: { maxRunning: 1 },
});

async function heldClaims(holdMaxMs: number | undefined): Promise<number> {
  const pg = await createPgDatabase({ prefix: 'heldclaims' });
  const database = openDatabase({ url: pg.url, poolSize: 4 });
  try {
    await migrate(database);
    let started = 0;
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((r) => (release = r));
    const handler = defineHandler(job, {
      prepare: () => [{ key: 'u', input: 0 }],
      execute: async (_u, c) => {
        started++;
        if (c.input.n === 0) await blocked;
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
    const [blocker, held] = [row(0), row(1)];
    await acceptJobs(database, [blocker]);
    const worker = createWorker({
      jobs: { [job.kind]: job },
      handlers: { [job.kind]: { v1: handler } },
      database,
      concurrency: 4,
      sweepEveryMs: 0,
      metrics: { processMetrics: false },
      runtime: (c) => createEmbeddedRuntime({ database, ...c }),
      ...(holdMaxMs === undefined ? {} : { limitHoldMaxMs: holdMaxMs }),
    } as Parameters<typeof createWorker>[0]);
    await worker.start();
    try {
      await waitFor(() => started === 1, { timeoutMs: 20_000, message: 'blocker started' });
      await acceptJobs(database, [held]);
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const epoch = (await getJobsByIds(database.db, [held.id])).get(held.id)?.epoch ?? 0;
      release();
      return epoch;
    } finally {
      release();
      await worker.stop({ deadlineMs: 5_000 });
    }
  } finally {
    await database.close();
    await pg.drop();
  }
}

const backoff = await heldClaims(undefined);
const fixed = await heldClaims(1_000);
console.log(JSON.stringify({ seconds, claimsWithBackoff: backoff, claimsFixedOneSecond: fixed }));
