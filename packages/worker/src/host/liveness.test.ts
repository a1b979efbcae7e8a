// Catches a liveness beat that asks the transport who holds deliveries on every beat of every
// worker (on Streams one XPENDING per stream, per worker, per second) although almost always
// nobody died: the database is asked first, and the transport only once a worker's row lapsed.
// Then the dead holder (and only it: not this worker, not a dead worker holding nothing) is
// handed to `takeOver`.
import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import { beatLiveness } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { sleep, waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';
import { startLiveness } from './liveness.js';

describeEachDialect('liveness beat', (ctx) => {
  it('asks the transport for holders only once a worker lapsed, then takes over the dead one', async () => {
    const { database } = ctx();
    let asked = 0;
    const takenOver: string[][] = [];
    const consumer = {
      holders: () => {
        asked++;
        return Promise.resolve(['me', 'dead-1', 'alive-1']);
      },
      takeOver: (dead: readonly string[]) => {
        takenOver.push([...dead]);
        return Promise.resolve();
      },
    } as unknown as RuntimeConsumer<Delivery>;
    await beatLiveness(database.db, 'alive-1', 60_000);
    const liveness = startLiveness({
      database,
      consumer,
      workerId: 'me',
      everyMs: 50,
      deadAfterMs: 1000,
      counters: { reapedJobs: 0 } as WorkerCounters,
      logger: silentLogger,
    });
    try {
      await sleep(400);
      expect(asked).toBe(0);
      expect(takenOver).toEqual([]);
      // dead-1 beat long ago; dead-2 too, but holds nothing.
      await beatLiveness(database.db, 'dead-1', 1, Date.now() - 10_000);
      await beatLiveness(database.db, 'dead-2', 1, Date.now() - 10_000);
      await waitFor(() => takenOver.length > 0, { timeoutMs: 5_000, message: 'a take-over' });
      expect(asked).toBeGreaterThan(0);
      expect(takenOver[0]).toEqual(['dead-1']);
    } finally {
      await liveness.withdraw();
    }
  });
});
