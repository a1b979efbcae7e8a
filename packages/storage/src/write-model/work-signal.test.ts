// The work signal's LISTEN connection is the one pool client an embedded worker holds between
// claims. If `close` runs while that client is still being checked out (a worker stopped right
// after it started), the late client must still go back to the pool: otherwise the database's
// `close` (pg's `pool.end()`) waits for it forever — seen as a 120 s hook timeout in CI.
import { afterEach, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '../testing/dialects.js';
import { JOBS_CHANNEL } from '../migration-write-model.js';
import { createWorkSignal } from './work-signal.js';

let test: TestDatabase | undefined;
afterEach(async () => {
  await test?.dispose();
  test = undefined;
});

function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not finish in ${ms} ms`)), ms).unref(),
    ),
  ]);
}

it.skipIf(!TEST_DIALECTS.includes('postgres'))(
  'a work signal closed while its LISTEN client connects returns that client: the database still closes',
  async () => {
    test = await createTestDatabase('postgres');
    const db = test.open();
    for (let i = 0; i < 5; i++) {
      const signal = createWorkSignal(db);
      await signal.close(); // before the pool handed out the LISTEN client
    }
    await within(5_000, db.close(), 'database close');
  },
);

it.skipIf(!TEST_DIALECTS.includes('postgres'))(
  'a NOTIFY from another connection ends a wait early; after close nothing listens',
  async () => {
    test = await createTestDatabase('postgres');
    const db = test.open();
    const signal = createWorkSignal(db);
    await new Promise((r) => setTimeout(r, 200)); // let it LISTEN
    const started = Date.now();
    const waited = signal.wait(10_000);
    await sql`select pg_notify(${JOBS_CHANNEL}, '')`.execute(test.database.db);
    await within(5_000, waited, 'wait');
    expect(Date.now() - started).toBeLessThan(5_000);
    await signal.close();
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and query ilike 'listen%' and state = 'idle'`.execute(
      test.database.db,
    );
    expect(rows[0]?.n).toBe(0);
    await within(5_000, db.close(), 'database close');
  },
);
