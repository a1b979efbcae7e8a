// Catches a bulk runner that keeps the database busy while there is nothing to run: idle, it
// looks for work once at start (an operation left by a gateway that stopped) and then once a
// lease (the soonest another gateway's operation can lapse); a start on this gateway wakes it at
// once instead. The old default read every 2 s from process start, bulk operation or not.
import type { KyselyPlugin } from 'kysely';
import { describeEachDialect } from '@sluice/storage/testing';
import { sleep } from '@sluice/testkit';
import { expect, it } from 'vitest';
import type { RouterDeps } from '../routers/deps.js';
import { createBulkRunner } from './bulk-runner.js';

describeEachDialect('bulk runner, idle', (ctx) => {
  it('reads the database once at start and then once a lease, not every few seconds', async () => {
    const { database } = ctx();
    let updates = 0;
    const counting: KyselyPlugin = {
      transformQuery(args) {
        if (args.node.kind === 'UpdateQueryNode') updates++;
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    };
    const deps = {
      database: { ...database, db: database.db.withPlugin(counting) },
      logger: { error: () => {} },
    } as unknown as RouterDeps;
    const runner = createBulkRunner(deps, { leaseMs: 60_000 });
    runner.start();
    try {
      await sleep(4_500);
      expect(updates).toBe(1);
    } finally {
      await runner.close();
    }
  });
});
