// Catches a paused attempt that publishes or deletes after it lost its job (the promise: a zombie
// attempt fails the ownership check and publishes nothing). Worker A SIGSTOPs itself with its
// asset's bytes in its staging key, before the publish; it stays stopped past its lease while
// worker B takes the job over and publishes its own (different) bytes. Then A is SIGCONTed: it
// must publish nothing, keep B's row and blob byte for byte, and delete only its own staging key.
// Written once; each runtime's test file passes its rig.
import { getJobById, listEvents, stagingPrefix, type DialectName } from '@sluice/storage';
import { TEST_DIALECTS } from '@sluice/storage/testing';
import { sleep, spawnNode, waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { auditAssets, sha256 } from './asset-fixture.js';
import { assetLines, PAID_WORKER_ENTRY, useAssetRunEnv } from './asset-runs.js';
import { recordFigures } from './figures.js';
import { describeOnRig, submitPaidJobsVia, type InvariantRig } from './invariant-rig.js';

const LEASE_MS = 2000;

export function describeZombiePublishesNothing(
  runtime: string,
  makeRig: () => Promise<InvariantRig>,
  dialects: readonly DialectName[] = TEST_DIALECTS,
): void {
  describeOnRig('zombie publishes nothing', makeRig, dialects, (ctx) => {
    const env = useAssetRunEnv();
    it(
      `a SIGSTOPped attempt resumed after a takeover publishes and deletes nothing [${runtime}]`,
      { timeout: 120_000 },
      async () => {
        const started = Date.now();
        const { database, rig } = ctx();
        const e = env();
        const input = { call: 'safe' as const, units: 1, asset: true };
        const [id] = (await submitPaidJobsVia(rig, database, [input])) as [string];
        const base = {
          ...rig.childEnv(),
          LEASE_MS: String(LEASE_MS),
          // No sweeper: the zombie's staging blob is left for the zombie itself to clean.
          STAGING_SWEEP_MS: '0',
        };
        await using a = await spawnNode(PAID_WORKER_ENTRY, {
          env: {
            ...e.env(ctx(), 'zombie-a'),
            ...base,
            CRASHPOINTS: 'after-blob-write-before-publish@1:stop',
          },
        });
        await a.waitForLine(/CRASHPOINT after-blob-write-before-publish@1: SIGSTOP/, 30_000);
        const stoppedAt = Date.now();
        const zombieStaging = await keys(stagingPrefix('acme', id));
        expect(zombieStaging).toHaveLength(1);

        await using b = await spawnNode(PAID_WORKER_ENTRY, {
          env: { ...e.env(ctx(), 'taker-b'), ...base },
          readyLine: /^READY /m,
        });
        await waitFor(async () => (await getJobById(database.db, id))?.state === 'succeeded', {
          timeoutMs: 30_000,
          message: 'b finished the job',
        });
        const takeoverMs = Date.now() - stoppedAt;
        const before = await auditAssets(database, e.blobs, { id, tenantId: 'acme' });
        expect(before.rows).toHaveLength(1);
        const won = before.rows[0];
        const bLines = assetLines(b.output());
        expect(bLines).toEqual([{ jobId: id, scope: 'u0', how: 'published', sha: won?.sha256 }]);

        // Wake the zombie: its publish transaction runs now, long after its lease.
        a.signal('SIGCONT');
        await a.waitForLine(new RegExp(`^ASSET ${id} u0 (published|reused) `, 'm'), 20_000);
        await sleep(800); // room for any late write, delete or ack from the zombie (none may land)

        const after = await auditAssets(database, e.blobs, { id, tenantId: 'acme' });
        const zombiePublishes = assetLines(a.output()).filter((l) => l.how === 'published').length;
        expect(zombiePublishes).toBe(0);
        expect(after.rows).toEqual(before.rows); // the row is B's, unchanged
        const bytes = Buffer.from(
          await new Response(await e.blobs.get(won?.finalKey ?? '')).arrayBuffer(),
        );
        expect(sha256(bytes)).toBe(won?.sha256); // B's bytes, byte for byte
        expect(bytes.toString()).toContain('by taker-b attempt 2');
        expect(after.ghosts).toEqual([]);
        expect(after.orphans).toEqual([]);
        expect(after.staging).toEqual([]); // the zombie deleted its own staging key
        const row = await getJobById(database.db, id);
        expect(row).toMatchObject({ state: 'succeeded', attempts: 2 });
        expect(won?.attemptId).toBe(row?.attemptId); // published by B's attempt
        const events = await listEvents(database.db, id);
        expect(events.filter((ev) => ev.type === 'state' && ev.to === 'succeeded')).toHaveLength(1);
        recordFigures('zombie-publishes-nothing', {
          runtime,
          dialect: ctx().dialect,
          lease_ms: LEASE_MS,
          takeover_ms: takeoverMs,
          zombie_publishes: zombiePublishes,
          zombie_deleted_others: after.ghosts.length,
          ms: Date.now() - started,
        });
        await b.stop();
        await a.stop();

        async function keys(prefix: string): Promise<string[]> {
          const out: string[] = [];
          for await (const k of e.blobs.list(prefix)) out.push(k);
          return out;
        }
      },
    );
  });
}
