// The Streams runtime as the worker's invariant cases see it (`InvariantRig`): a private
// redis-server per suite, in-process consumers and worker processes on it, the gateway's dispatch
// (XADD after the commit; the worker children run this package's consumer through RUNTIME_MODULE) and an outbox pump standing in for its reconciler. Its pending lists are
// the transport's own claims, which the cases check where a rig can show them.
import { parseXPendingRange } from '../replies.js';
import { startOutboxPump, type InvariantRig } from '@sluice/worker/conformance';
import { createStreamsRuntime } from '../worker/create-streams-runtime.js';
import { PAID_CHILD_RUNTIME } from './paid-runtime-entry.js';
import { renewScriptFromEnv } from './renew-script.js';
import { createStreamsFixture } from './streams-fixture.js';
import { withSnapshots } from './with-snapshots.js';

export async function createStreamsRig(
  options: Parameters<typeof createStreamsFixture>[0] = {},
): Promise<InvariantRig> {
  const fx = await createStreamsFixture(options);
  return {
    dispatchesInTransaction: false,
    // The pointer codec refuses a version other than the job id's prefix.
    carriesMisroutedPointers: false,
    async dispatch(database, pointers) {
      await fx.dispatch(await withSnapshots(database, pointers));
    },
    consumer: () => (c) =>
      createStreamsRuntime({
        renewScript: renewScriptFromEnv(),
        ...c,
        redisUrl: fx.server.url,
        blockMs: 200,
        claimEveryMs: 200,
        heartbeatEveryMs: 200,
        maintainEveryMs: 0,
      }),
    childEnv: () => ({ RUNTIME_MODULE: PAID_CHILD_RUNTIME.pathname, REDIS_URL: fx.server.url }),
    async outstanding(_database, kind) {
      return fx.outstanding(await fx.redis.keys(`${fx.keys.prefix}:jobs:{${kind}:*`));
    },
    async claims(kind) {
      const pending = await fx.redis.xpending(
        fx.keys.jobs(kind, 'v1'),
        fx.keys.group,
        '-',
        '+',
        100,
      );
      return parseXPendingRange(pending).map((p) => ({ consumer: p.consumer, idleMs: p.idleMs }));
    },
    reconcile(database) {
      const pump = startOutboxPump(database, fx.dispatch, 50);
      return () => clearInterval(pump);
    },
    dispose: () => fx.dispose(),
  };
}
