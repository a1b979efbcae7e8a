// The setup every cross-process Streams test shares: a private redis-server, a fresh database
// (PostgreSQL when the machine has it) and an outbox pump standing in for the gateway's
// reconciler, created before the file's tests and disposed after them. Test files only: it
// registers vitest hooks.
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from '@sluice/storage/testing';
import { afterAll, beforeAll } from 'vitest';
import { createStreamsFixture, type StreamsFixture } from './streams-fixture.js';
import { startOutboxPump } from '@sluice/worker/conformance';

export const XP_DIALECT = TEST_DIALECTS.includes('postgres') ? 'postgres' : 'sqlite';

export interface StreamsXpSuite {
  fx: StreamsFixture;
  db: TestDatabase;
}

/** Registers the hooks; the returned object is filled in before the first test runs. */
export function useStreamsXpSuite(
  options: Parameters<typeof createStreamsFixture>[0] = {},
): StreamsXpSuite {
  const suite = {} as StreamsXpSuite;
  let pump: NodeJS.Timeout | undefined;
  beforeAll(async () => {
    [suite.fx, suite.db] = await Promise.all([
      createStreamsFixture(options),
      createTestDatabase(XP_DIALECT),
    ]);
    pump = startOutboxPump(suite.db.database, suite.fx.dispatch, 50);
  });
  afterAll(async () => {
    clearInterval(pump);
    await suite.fx?.dispose();
    await suite.db?.dispose();
  });
  return suite;
}

/**
 * A private redis-server for the tests of the enclosing `describe` (or file): created before
 * them, disposed after. Read it inside a test (`fx()`), not while the suite is collected.
 */
export function useStreamsFixture(
  options: Parameters<typeof createStreamsFixture>[0] = {},
): () => StreamsFixture {
  let fx: StreamsFixture | undefined;
  beforeAll(async () => {
    fx = await createStreamsFixture(options);
  });
  afterAll(async () => {
    await fx?.dispose();
  });
  return () => {
    if (!fx) throw new Error('streams fixture not ready');
    return fx;
  };
}
