// Upgrading from the untagged key layout (`sluice:jobs:<kind>:<version>`, before the hash tags
// that make the runtime Cluster-ready): jobs an older gateway dispatched sit under the old names,
// one undelivered and one delivered to an older worker that is gone. Nothing of this release
// reads the old names; its generation marker is a new key, so the first reconciler of this
// release reads the server as lost and dispatches every non-terminal job again from the database
// into the tagged streams. Each job must run once and end `succeeded` with one terminal event.

import { encodePointer, type MessagePointer } from '@sluice/contracts';
import { getJobsByIds } from '@sluice/storage';
import { createTestDatabase } from '@sluice/storage/testing';
import { spawnNode, waitFor } from '@sluice/testkit';
import { submitXpDispatchedJobs, terminalEventCounts } from '@sluice/worker/conformance';
import { expect, it } from 'vitest';
import { createStreamsGatewayRuntime } from './gateway/create-streams-gateway-runtime.js';
import { createStreamsFixture } from './testing/streams-fixture.js';
import { XP_DIALECT } from './testing/streams-xp-suite.js';

const entry = new URL('./testing/streams-worker-child.ts', import.meta.url);
/** The names the previous release gave a stream and its marker. */
const OLD_STREAM = 'sluice:jobs:xp.work:v1';
const OLD_MARKER = 'sluice:generation';

it(
  `jobs pending under the untagged keys of an older release run once after the upgrade [${XP_DIALECT}]`,
  { timeout: 90_000 },
  async () => {
    const fx = await createStreamsFixture();
    const db = await createTestDatabase(XP_DIALECT);
    const { database } = db;
    const { redis, keys } = fx;
    // What the older gateway left: its marker, its group, the jobs' entries under the old name.
    await redis.set(OLD_MARKER, 'older-release');
    await redis.xgroup('CREATE', OLD_STREAM, keys.group, '0', 'MKSTREAM');
    const oldDispatch = async (pointers: readonly MessagePointer[]) => {
      for (const p of pointers) await redis.xadd(OLD_STREAM, '*', ...encodePointer(p));
    };
    const ids = await submitXpDispatchedJobs(database, oldDispatch, 4);
    // One of them was delivered to an older worker that is gone (pending under the old name).
    await redis.xreadgroup(
      'GROUP',
      keys.group,
      'older-worker',
      'COUNT',
      1,
      'STREAMS',
      OLD_STREAM,
      '>',
    );
    expect(await fx.pendingCount(OLD_STREAM)).toBe(1);
    expect(keys.jobs('xp.work', 'v1')).not.toBe(OLD_STREAM);

    const gateway = createStreamsGatewayRuntime({
      redisUrl: fx.server.url,
      database,
      reconciler: { tickMs: 200 },
    });
    const worker = await spawnNode(entry, {
      env: {
        DB_URL: db.url,
        REDIS_URL: fx.server.url,
        WORKER_ID: 'upgraded',
        LEASE_MS: '1500',
        UNIT_MS: '20',
        UNITS: '1',
        CONCURRENCY: '4',
      },
      readyLine: /READY/,
    });
    try {
      await waitFor(
        async () =>
          [...(await getJobsByIds(database.db, ids)).values()].every(
            (r) => r.state === 'succeeded',
          ),
        { timeoutMs: 30_000, message: 'every job pending under the old keys succeeded' },
      );
      expect(await terminalEventCounts(database, ids)).toEqual(ids.map(() => 1));
      // Each ran once: one STARTED line per job, attempt 1.
      const started = worker.output().match(/^STARTED \S+ \d+$/gm) ?? [];
      expect(started.sort()).toEqual(ids.map((id) => `STARTED ${id} 1`).sort());
      // The tagged stream carried them; the old one was left as it was (an operator may delete it).
      expect(await redis.exists(keys.jobs('xp.work', 'v1'))).toBe(1);
      expect(await redis.get(keys.generation)).not.toBeNull();
    } finally {
      await worker.stop();
      await gateway.close();
      await fx.dispose();
      await db.dispose();
    }
  },
);
