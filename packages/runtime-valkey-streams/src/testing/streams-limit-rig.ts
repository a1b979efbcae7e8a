// The Streams runtime as the worker's limit cases see it (start-limits.case.ts,
// provider-limits.case.ts): workers on a private redis-server, the gateway's dispatch (XADD after
// the commit) and its reconciler. A job held back by a limit leaves the stream with a due outbox
// row; only the reconciler brings it back, so the rig plays it over the test's database.
import {
  getJobsByIds,
  deleteOutboxRows,
  dueOutboxRows,
  type SluiceDatabase,
} from '@sluice/storage';
import type { LimitRig } from '@sluice/worker/conformance';
import { createStreamsRuntime } from '../worker/create-streams-runtime.js';
import { createStreamsFixture } from './streams-fixture.js';

export async function createStreamsLimitRig(): Promise<LimitRig> {
  const fx = await createStreamsFixture();
  return {
    runtime: () => (c) =>
      createStreamsRuntime({
        ...c,
        redisUrl: fx.server.url,
        blockMs: 100,
        claimEveryMs: 100,
        heartbeatEveryMs: 100,
      }),
    async dispatch(pointers) {
      await fx.dispatch(pointers);
    },
    reconcile(database: SluiceDatabase) {
      let stopped = false;
      const loop = (async () => {
        while (!stopped) {
          const rows = await dueOutboxRows(database.db, Date.now(), 0, 500);
          if (rows.length > 0) {
            const jobs = await getJobsByIds(
              database.db,
              rows.map((r) => r.jobId),
            );
            await fx.dispatch(
              [...jobs.values()].map((j) => ({
                jobId: j.id,
                kind: j.kind,
                version: j.version,
                tenantId: j.tenantId,
              })),
            );
            await deleteOutboxRows(database.db, rows);
          }
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      return async () => {
        stopped = true;
        await loop;
      };
    },
    dispose: () => fx.dispose(),
  };
}
