// Catches a bulk operation that skips or repeats jobs when its gateway dies without warning: a
// bulk requeue of 2,000 dead-lettered jobs in batches of 25 runs on a gateway in its own process
// (Streams + PostgreSQL); once some batches landed it is SIGKILLed mid-operation (no close, no
// lease handed back, a batch possibly in flight), and a second gateway process must take the
// operation over when the lease lapses and finish it with every job requeued exactly once (the
// events say so per job) and the operation's counts matching. The seeded bug
// `bulk-progress-outside-batch` (progress committed before its batch) turns it red: the batch in
// flight at the kill is skipped. Prints the kill → resume and total times.

import { createApiKey, getBulkOperation, type DialectName } from '@sluice/storage';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import {
  sleep,
  spawnNode,
  startRedisServer,
  waitFor,
  type ChildHandle,
  type RedisServer,
} from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bulkClient, requeuesOf, seedDeadLettered } from './testing/bulk-rig.js';
import { XP_DIALECT } from './testing/streams-xp-suite.js';

const gatewayEntry = new URL('./testing/gateway-child.ts', import.meta.url);
const JOBS = 2000;
const BATCH = 25;
const LEASE_MS = 2000;
// PostgreSQL when the machine has it; SLUICE_XP_DIALECT=sqlite runs it on one SQLite file.
const dialect: DialectName = process.env.SLUICE_XP_DIALECT === 'sqlite' ? 'sqlite' : XP_DIALECT;

let redis: RedisServer;
let db: TestDatabase;
let key: string;
const children: ChildHandle[] = [];

beforeAll(async () => {
  [redis, db] = await Promise.all([startRedisServer(), createTestDatabase(dialect)]);
  key = (await createApiKey(db.database.db, 'acme', { scopes: ['jobs:manage'] })).key;
}, 60_000);

afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  await redis?.stop();
  await db?.dispose();
});

/** A gateway process whose bulk runner takes small batches and a short lease. */
async function gatewayProcess(id: string): Promise<{ child: ChildHandle; url: string }> {
  const child = await spawnNode(gatewayEntry, {
    env: {
      DB_URL: db.url,
      REDIS_URL: redis.url,
      GATEWAY_ID: id,
      BULK_BATCH: String(BATCH),
      BULK_PAUSE_MS: '50',
      BULK_LEASE_MS: String(LEASE_MS),
      BULK_POLL_MS: '100',
    },
    readyLine: /READY (\S+)/,
  });
  children.push(child);
  return { child, url: (await child.waitForLine(/READY (\S+)/, 30_000))[1] as string };
}

it(`a bulk requeue of ${JOBS} jobs survives its gateway's SIGKILL: another finishes it, each job moved exactly once`, async () => {
  const seedStarted = Date.now();
  const ids = await seedDeadLettered(db.database, JOBS, 'xp.work');
  console.info(
    `[bulk-sigkill] seeded ${JOBS} dead-lettered jobs in ${Date.now() - seedStarted} ms`,
  );
  const a = await gatewayProcess('gw-a');
  const op = await bulkClient(a.url, key).bulk.start.mutate({
    action: 'requeue',
    filter: { kind: 'xp.work' },
    operationKey: 'sigkill-requeue',
    note: 'provider back',
  });
  expect(op).toMatchObject({ state: 'running', total: JOBS });
  const started = Date.now();
  const row = async () => {
    const r = await getBulkOperation(db.database.db, 'acme', op.id);
    if (!r) throw new Error('operation gone');
    return r;
  };
  // The second gateway is up before the kill: what follows measures the lease, not a boot.
  const b = await gatewayProcess('gw-b');
  // Kill the moment a batch's progress shows (polling fast): the next batch is then being read or
  // applied, and a runner that stores progress before its batch commits is caught in between.
  let seen = (await row()).processed;
  for (;;) {
    const now = (await row()).processed;
    if (now > seen && now >= 8 * BATCH) break;
    seen = now;
    await sleep(2);
  }
  await a.child.kill();
  const killedAt = Date.now();
  // Read again once A is gone: a batch it committed after the read above is A's, not B's.
  const dead = await row();
  expect(dead.state).toBe('running');
  expect(dead.processed).toBeGreaterThan(0);
  expect(dead.processed).toBeLessThan(JOBS);

  // Resumed: progress moves again (only gateway b is left to move it).
  await waitFor(async () => (await row()).processed > dead.processed, {
    timeoutMs: LEASE_MS * 5,
    intervalMs: 20,
    message: 'operation resumed by the second gateway',
  });
  const resumeMs = Date.now() - killedAt;
  await waitFor(async () => (await row()).state !== 'running', {
    timeoutMs: 60_000,
    intervalMs: 50,
    message: 'operation finished',
  });
  const totalMs = Date.now() - started;
  const done = await row();
  console.info(
    `[bulk-sigkill] ${dialect}: killed at ${dead.processed}/${JOBS}; kill → resumed ${resumeMs} ms ` +
      `(lease ${LEASE_MS} ms); start → finished ${totalMs} ms`,
  );
  expect(done).toMatchObject({ state: 'succeeded', processed: JOBS, applied: JOBS, skipped: 0 });
  expect(done.failed).toBe(0);

  const counts = await requeuesOf(db.database, ids);
  const skipped = ids.filter((id) => counts.get(id) === 0);
  const twice = ids.filter((id) => (counts.get(id) ?? 0) > 1);
  expect({ skipped: skipped.length, twice: twice.length }).toEqual({ skipped: 0, twice: 0 });
  // The operation through the surviving gateway says the same.
  expect(await bulkClient(b.url, key).bulk.get.query({ id: op.id })).toMatchObject({
    state: 'succeeded',
    processed: JOBS,
  });
}, 120_000);
