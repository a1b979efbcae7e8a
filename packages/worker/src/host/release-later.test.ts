// Catches a retry that the gateway's reconciler would hold back as if it were a fresh accept
// (due time not after the row's creation) or a delayed release that is acknowledged without a
// row to bring the job back (the job would sit queued in no stream until the slow sweep).

import { EMBEDDED_CAPABILITIES, type Delivery, type RuntimeConsumer } from '@sluice/contracts';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { addRetryOutbox, releaseAfterDelay } from './release-later.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('sqlite');
});
afterAll(async () => {
  await db?.dispose();
});

const rows = () =>
  db.database.db.selectFrom('outbox').select(['job_id', 'due_at', 'created_at']).execute();

it('a retry row is due after its creation even for a tiny delay', async () => {
  await addRetryOutbox(db.database.db, ['v1-aaaaaaaaaaaaaaaaaaaaaaaaaa'], 1, Date.now() - 20);
  const [row] = await rows();
  expect(row && row.due_at > row.created_at).toBe(true);
});

it('a delayed release writes the outbox row before the transport lets go; a failed row requeues now', async () => {
  const calls: string[] = [];
  const consumer = {
    // A transport outside the database (dispatch after commit, an outbox row brings a job back)
    // that acknowledges apart from the outcome (release is its own call).
    capabilities: {
      ...EMBEDDED_CAPABILITIES,
      dispatchesInTransaction: false,
      startsOnClaim: false,
      acksWithOutcome: false,
    },
    release: async (ds: readonly Delivery[], ms = 0) => {
      calls.push(`release ${ds.length} ${ms} rows=${(await rows()).length}`);
    },
  } as unknown as RuntimeConsumer;
  const d = {
    id: 'x',
    transportDeliveries: 1,
    pointer: { jobId: 'v1-bbbbbbbbbbbbbbbbbbbbbbbbbb', kind: 'a.b', version: 'v1', tenantId: 't' },
  };
  await releaseAfterDelay({ database: db.database, consumer, logger: silentLogger }, [d], 500);
  expect(calls).toEqual(['release 1 500 rows=2']);
  const broken = {
    ...db.database,
    db: {
      ...db.database.db,
      insertInto: () => {
        throw new Error('db down');
      },
    },
  };
  await releaseAfterDelay({ database: broken as never, consumer, logger: silentLogger }, [d], 500);
  expect(calls.at(-1)).toBe('release 1 0 rows=2');
});
