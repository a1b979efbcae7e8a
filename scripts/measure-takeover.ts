// `npm run measure-takeover [-- --kills 20 --runtimes embedded,streams --db sqlite|postgres]`:
// how long a SIGKILLed worker's job waits before another worker resumes it, with worker liveness
// (dead after DEAD_AFTER_MS) and a 30 s lease. Each kill: one `xp.paid` job (3 sync units);
// worker A (a process) SIGKILLs itself after its first unit's paid call is checkpointed; worker B
// (a process loaded beforehand, a new worker per round, another id) starts right after the kill.
// Resumed = the job is running again at a new epoch; done = succeeded. Every unit must be billed
// exactly once (the fake provider's ledger). Prints p50/p99 per runtime. Not a test: a figure.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  getJobById,
  migrate,
  openDatabase,
  type SluiceDatabase,
} from '../packages/storage/src/index.js';
import {
  createPgDatabase,
  spawnNode,
  startFakeProvider,
  waitFor,
  type ChildHandle,
} from '../packages/testkit/src/index.js';
import { PAID_WORKER_CHILD } from '../packages/worker/src/conformance/index.js';
import { paidJob, submitPaidJobs } from '../packages/worker/src/testing/paid-job.js';
import { createStreamsFixture } from '../packages/runtime-valkey-streams/src/testing/streams-fixture.js';
import { PAID_CHILD_RUNTIME } from '../packages/runtime-valkey-streams/src/testing/paid-runtime-entry.js';

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '20' },
    runtimes: { type: 'string', default: 'embedded,streams' },
    db: { type: 'string', default: 'sqlite' },
    'dead-after-ms': { type: 'string', default: '2000' },
  },
});
const KILLS = Number(values.kills);
const LEASE_MS = 30_000;
const DEAD_AFTER_MS = Number(values['dead-after-ms']);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};

async function openDb(
  dir: string,
): Promise<{ url: string; database: SluiceDatabase; drop(): Promise<void> }> {
  if (values.db === 'postgres') {
    const pg = await createPgDatabase({ prefix: 'sluice_takeover' });
    const database = openDatabase({ url: pg.url, poolSize: 4 });
    await migrate(database);
    return {
      url: pg.url,
      database,
      drop: async () => {
        await database.close();
        await pg.drop();
      },
    };
  }
  const url = join(dir, 'sluice.db');
  const database = openDatabase({ url, poolSize: 4 });
  await migrate(database);
  return { url, database, drop: () => database.close() };
}

async function measure(runtime: 'embedded' | 'streams'): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `sluice-takeover-${runtime}-`));
  const db = await openDb(dir);
  const provider = await startFakeProvider({ asyncDelayMs: 60 });
  const fx = runtime === 'streams' ? await createStreamsFixture() : undefined;
  const env = {
    DB_URL: db.url,
    PROVIDER_URL: provider.url,
    LEASE_MS: String(LEASE_MS),
    LIVENESS_MS: '250',
    DEAD_AFTER_MS: String(DEAD_AFTER_MS),
    CONCURRENCY: '1',
    ...(fx ? { RUNTIME_MODULE: PAID_CHILD_RUNTIME.pathname, REDIS_URL: fx.server.url } : {}),
  };
  const taker = await spawnNode(PAID_WORKER_CHILD, {
    env: { ...env, WORKER_ID: `taker-${runtime}`, ROUNDS_DIR: dir },
    readyLine: /^LOADED$/m,
  });
  const resumed: number[] = [];
  const done: number[] = [];
  let doubleBills = 0;
  try {
    for (let k = 1; k <= KILLS; k++) {
      const [id] = (await submitPaidJobs(db.database, [{ call: 'sync', units: 3 }], () =>
        Promise.resolve(),
      )) as [string];
      if (fx)
        await fx.dispatch([{ jobId: id, kind: paidJob.kind, version: 'v1', tenantId: 'acme' }]);
      const a: ChildHandle = await spawnNode(PAID_WORKER_CHILD, {
        env: {
          ...env,
          WORKER_ID: `victim-${runtime}-${k}`,
          CRASHPOINTS: 'after-unit-checkpoint@1',
        },
        readyLine: /READY/,
      });
      const exit = await a.exited;
      const killedAt = Date.now();
      if (exit.signal !== 'SIGKILL') throw new Error(`A did not crash:\n${a.output()}`);
      const epoch = (await getJobById(db.database.db, id))?.epoch ?? 0;
      writeFileSync(join(dir, `go-${k}`), '');
      resumed.push(
        (await waitFor(
          async () =>
            ((await getJobById(db.database.db, id))?.epoch ?? 0) > epoch ? Date.now() : 0,
          { timeoutMs: 60_000, intervalMs: 10 },
        )) - killedAt,
      );
      done.push(
        (await waitFor(
          async () =>
            (await getJobById(db.database.db, id))?.state === 'succeeded' ? Date.now() : 0,
          { timeoutMs: 60_000, intervalMs: 10 },
        )) - killedAt,
      );
      const billed = new Map<string, number>();
      for (const r of await provider.ledger({ jobId: id }))
        if (r.billed) billed.set(r.unitKey, (billed.get(r.unitKey) ?? 0) + 1);
      for (const n of billed.values()) doubleBills += Math.max(0, n - 1);
      writeFileSync(join(dir, `stop-${k}`), '');
      await taker.waitForLine(new RegExp(`^STOPPED ${k}$`, 'm'), 30_000);
      process.stderr.write(
        `${runtime} kill ${k}: resumed ${resumed.at(-1)} ms, done ${done.at(-1)} ms\n`,
      );
    }
  } finally {
    await taker.kill();
    await fx?.dispose();
    await provider[Symbol.asyncDispose]();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `${runtime} (${values.db}, lease ${LEASE_MS} ms, dead after ${DEAD_AFTER_MS} ms, ${KILLS} kills): ` +
      `SIGKILL→resumed p50 ${pct(resumed, 50)} ms p99 ${pct(resumed, 99)} ms; ` +
      `SIGKILL→done p50 ${pct(done, 50)} ms p99 ${pct(done, 99)} ms; double bills ${doubleBills}`,
  );
}

for (const r of (values.runtimes ?? '').split(',')) {
  if (r !== 'embedded' && r !== 'streams') throw new Error(`unknown runtime ${r}`);
  await measure(r);
}
