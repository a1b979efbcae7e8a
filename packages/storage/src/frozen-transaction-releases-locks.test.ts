// A process frozen inside a PostgreSQL transaction (SIGSTOP, VM pause, long GC) must not hold its
// row locks forever: the worker that reclaims its expired lease would wait on them. The server
// ends such a session after `idleInTransactionTimeoutMs`. Here the "frozen" client holds a row
// lock while sleeping; another connection's update of that row must get through soon after the
// timeout, and the frozen transaction must fail instead of committing late. The control (timeout
// 0) shows the same update blocked until the holder commits, so the first case can fail.
import { createPgDatabase, sleep, type PgDatabase } from '@sluice/testkit';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SluiceDatabase } from './database.js';
import { openDatabase } from './open-database.js';
import { TEST_DIALECTS } from './testing/index.js';

const HOLD_MS = 2_000;

describe.runIf(TEST_DIALECTS.includes('postgres'))(
  'a frozen transaction releases its locks',
  () => {
    let pg: PgDatabase;
    let other: SluiceDatabase;
    beforeAll(async () => {
      pg = await createPgDatabase({ prefix: 'sluice_frozen' });
      other = openDatabase({ url: pg.url, poolSize: 2 });
      await sql`create table t (id int primary key, v int not null)`.execute(other.db);
      await sql`insert into t values (1, 0)`.execute(other.db);
    });
    afterAll(async () => {
      await other?.close();
      await pg?.drop();
    });

    async function race(timeoutMs: number) {
      const frozen = openDatabase({
        url: pg.url,
        poolSize: 1,
        idleInTransactionTimeoutMs: timeoutMs,
      });
      try {
        let locked!: () => void;
        const holding = new Promise<void>((r) => (locked = r));
        const holder = frozen
          .transaction(async (tx) => {
            await sql`update t set v = v + 1 where id = 1`.execute(tx);
            locked();
            await sleep(HOLD_MS); // idle inside the transaction, like a stopped process
            await sql`update t set v = v + 100 where id = 1`.execute(tx);
          })
          .then(
            () => 'committed' as const,
            () => 'failed' as const,
          );
        await holding;
        const started = Date.now();
        await sql`update t set v = v + 10 where id = 1`.execute(other.db);
        const waitedMs = Date.now() - started;
        return { waitedMs, holder: await holder };
      } finally {
        await frozen.close().catch(() => {});
      }
    }

    it('with the timeout, the lock is released and the frozen transaction fails', async () => {
      const r = await race(300);
      expect(r.holder).toBe('failed');
      expect(r.waitedMs).toBeLessThan(HOLD_MS - 500);
    });

    it('without it (control), the update waits for the holder to commit', async () => {
      const r = await race(0);
      expect(r.holder).toBe('committed');
      expect(r.waitedMs).toBeGreaterThanOrEqual(HOLD_MS - 300);
    });
  },
);
