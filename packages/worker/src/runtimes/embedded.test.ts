// The runtime conformance suite for the embedded runtime, on SQLite and on PostgreSQL: the lease
// queue lives in the job database, so dispatch joins the accept transaction. Read failures are
// injected at the queue store (a failing claim), the way a database outage would show.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBlobStore, enqueue } from '@sluice/storage';
import { createTestDatabase, TEST_DIALECTS } from '@sluice/storage/testing';
import { createEmbeddedRuntime } from '../backends/create-embedded-runtime.js';
import { runtimeConformance } from '../testing/conformance.case.js';
import { embeddedOutstanding } from '../testing/invariant-rig.js';
import { EMBEDDED_CAPABILITIES } from './embedded.js';

for (const dialect of TEST_DIALECTS) {
  runtimeConformance(`embedded/${dialect}`, async () => {
    const test = await createTestDatabase(dialect);
    const dir = mkdtempSync(join(tmpdir(), 'sluice-blobs-'));
    const { database } = test;
    return {
      capabilities: EMBEDDED_CAPABILITIES,
      database,
      blobs: createLocalBlobStore(dir),
      consumer: ({ workerId, versions, leaseMs, faults }) =>
        createEmbeddedRuntime({
          database,
          workerId,
          versions,
          leaseMs,
          pollMs: 10,
          blockMs: 100,
          heartbeatEveryMs: 100,
          servedTtlMs: 1000,
          wrapStore: (store) => ({
            ...store,
            claim: (limit, opts) =>
              faults?.failReads
                ? Promise.reject(new Error('injected read failure'))
                : store.claim(limit, opts),
          }),
        }),
      dispatch: (pointers, tx) => enqueue(tx ?? database.db, pointers),
      pending: (kind) => embeddedOutstanding(database, kind),
      dispose: async () => {
        await test.dispose();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}
