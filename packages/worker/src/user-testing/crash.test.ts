// The emulated crash stops every kind of database access the worker has (kysely queries,
// transactions, the dialect's fixed statements on the better-sqlite3 handle) at the moment of
// death, and not before.

import { loadSnapshots, migrate, openDatabase, type SluiceDatabase } from '@sluice/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crashSwitch, mortalDatabase, SimulatedCrash } from './crash.js';

let database: SluiceDatabase;
beforeEach(async () => {
  database = openDatabase({ url: ':memory:', walCheckpointEveryMs: 0 });
  await migrate(database);
});
afterEach(async () => {
  await database.close();
});

const count = (d: SluiceDatabase) =>
  d.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();

describe('a crashing worker', () => {
  it('reaches the database until the crash point and never after it', async () => {
    const sw = crashSwitch('after-unit-checkpoint', 2);
    const mortal = mortalDatabase(database, sw, 'after-unit-checkpoint');
    await expect(count(mortal)).resolves.toBeDefined();
    await expect(loadSnapshots(mortal, ['v1-none'])).resolves.toEqual(new Map());
    expect(() => sw.at('after-unit-checkpoint')).not.toThrow(); // the first pass lives
    expect(() => sw.at('after-unit-checkpoint')).toThrow(SimulatedCrash);
    await expect(sw.crashed).resolves.toBe('after-unit-checkpoint');
    await expect(count(mortal)).rejects.toThrow(SimulatedCrash);
    await expect(mortal.transaction(async () => 1)).rejects.toThrow(SimulatedCrash);
    // A statement the dialect never prepared before (a claim) fails too.
    await expect(
      mortal.dialect.claimJobs(
        { versions: [{ kind: 'k', version: 'v1' }], owner: 'o', leaseMs: 1000, limit: 1 },
        new Date().toISOString(),
        new Date().toISOString(),
        null,
      ),
    ).rejects.toThrow(SimulatedCrash);
    // The database itself, which the surviving worker uses, is untouched.
    await expect(count(database)).resolves.toBeDefined();
  });

  it('a statement prepared before the crash fails after it', async () => {
    const sw = crashSwitch('after-request-sent');
    const mortal = mortalDatabase(database, sw, 'after-request-sent');
    // The snapshot read's statement is prepared (and cached) before the crash.
    await expect(loadSnapshots(mortal, ['v1-none'])).resolves.toEqual(new Map());
    // A socket-callback point: dies without throwing there.
    expect(() => sw.at('after-request-sent')).not.toThrow();
    expect(sw.dead).toBe(true);
    await expect(loadSnapshots(mortal, ['v1-none'])).rejects.toThrow(SimulatedCrash);
  });
});
