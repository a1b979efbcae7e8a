// Catches an attempt being drained that keeps its `drain` cause after its claim was lost: it would
// then write a `retry` the epoch fence refuses and give back a delivery that is no longer its own.
// A lost lease overrides any earlier cause except `cancelled` (the job is someone else's now).
// The database is real (SQLite); the transport is reduced to its renewal answer.

import type { Delivery, RenewOutcome, RuntimeConsumer } from '@sluice/contracts';
import { createTestDatabase, type TestDatabase } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { abortAttempt, createAttempt, type Attempt } from '../attempt/attempt.js';
import { resolveHooks } from '../hooks.js';
import { silentLogger } from '../logger.js';
import { createCounters } from '../metrics.js';
import { renewHeld } from './renew-held.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('sqlite');
});
afterAll(async () => {
  await db?.dispose();
});

function attempt(n: number): Attempt {
  const delivery: Delivery = { id: `d${n}`, pointer: null, transportDeliveries: 1 };
  return createAttempt({
    delivery,
    job: {
      id: `j${n}`,
      tenantId: 't',
      kind: 'k',
      version: 'v1',
      input: {},
      fileIds: [],
      maxAttempts: 3,
      epoch: 1,
      attempts: 1,
      attemptId: `a${n}`,
    },
    fence: { epoch: 0, lastSeq: 0, state: 'queued' },
    started: false,
    startFrom: 'queued',
  });
}

/** A transport whose claims answer `outcome` on renewal. */
function transport(outcome: RenewOutcome): RuntimeConsumer {
  return {
    renew: async (ds: readonly Delivery[]) => ds.map(() => outcome),
  } as Partial<RuntimeConsumer> as RuntimeConsumer;
}

it('a lost lease overrides drain (and an attempt with no cause yet), never cancelled', async () => {
  const counters = createCounters();
  const [draining, cancelled, plain] = [attempt(1), attempt(2), attempt(3)];
  abortAttempt(draining, 'drain');
  abortAttempt(cancelled, 'cancelled');
  await renewHeld(
    {
      database: db.database,
      consumer: transport('lost'),
      counters,
      logger: silentLogger,
      leaseMs: 1000,
      hooks: resolveHooks(undefined),
    },
    [draining, cancelled, plain],
  );
  expect(draining.cause).toBe('lease_lost');
  expect(cancelled.cause).toBe('cancelled');
  expect(plain.cause).toBe('lease_lost');
  expect(plain.controller.signal.aborted).toBe(true);
  expect(counters.lostLeases).toBe(2);
});
