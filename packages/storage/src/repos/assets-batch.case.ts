// The asset publish's batch form (assets-batch.ts) on every database: SQLite and PostgreSQL in the
// Node run (retry-safety.test.ts), D1 in workerd (workerd/storage-d1.test.ts), where the row and
// its read-back are ONE atomic batch. Rows are counted, never taken from the function's word.
import { expect } from 'vitest';
import { suiteIt, repoWrite, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import { assetsForJob, claimAssetOwnership } from './assets.js';
import { checkPublishableOnce, recordAssetFenced } from './assets-batch.js';
import { orphanedAssetClaims, releaseAssetClaim } from './asset-orphans.js';
import { transitionJob } from './jobs.js';
import { reclaim, runningJob } from './retry-safety.case.js';

export function assetBatchCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);

  async function setup(name: string) {
    const { database } = ctx();
    const job = await runningJob(database);
    const finalKey = `t/acme/j/${job.id}/assets/u/${name}`;
    const owner = (attemptId: string, epoch: number) => ({
      finalKey,
      jobId: job.id,
      unitKey: 'u',
      name,
      attemptId,
      epoch,
      stagingKey: `staging/${attemptId}`,
    });
    const row = (attemptId: string, sha256 = 's') => ({
      finalKey,
      jobId: job.id,
      tenantId: 'acme',
      unitKey: 'u',
      name,
      size: 3,
      sha256,
      contentType: 'image/png',
      attemptId,
    });
    return { database, job, finalKey, owner, row };
  }

  it('a stale attempt is fenced by epoch at the check and at the row: nothing of it is written', async () => {
    const { database, job, owner, row } = await setup('fenced.png');
    const a1 = owner(job.attemptId!, job.epoch);
    expect(await repoWrite(database, (tx) => claimAssetOwnership(tx, a1))).toBe('owned');
    expect(await checkPublishableOnce(database.db, a1)).toBe('ok');
    // a takeover between the check and the row (the stale attempt may already have published)
    const next = await reclaim(database, job.id, job.epoch);
    expect(await checkPublishableOnce(database.db, a1)).toBe('not_owner');
    expect(await recordAssetFenced(database.db, row(a1.attemptId), a1)).toEqual({
      outcome: 'not_owner',
    });
    expect(await assetsForJob(database.db, job.id)).toEqual([]);
    // the live attempt without its own ownership row is refused as well
    const a2 = owner(next.attemptId!, next.epoch);
    expect(await recordAssetFenced(database.db, row(a2.attemptId), a2)).toEqual({
      outcome: 'not_owner',
    });
    expect(await assetsForJob(database.db, job.id)).toEqual([]);
  });

  it('the owner records the row once; a repeat answers the stored row, never a second one', async () => {
    const { database, job, owner, row, finalKey } = await setup('once.png');
    const a1 = owner(job.attemptId!, job.epoch);
    expect(await repoWrite(database, (tx) => claimAssetOwnership(tx, a1))).toBe('owned');
    const first = await recordAssetFenced(database.db, row(a1.attemptId, 'sha-a'), a1);
    expect(first).toMatchObject({ outcome: 'inserted', row: { finalKey, sha256: 'sha-a' } });
    // the same attempt again (a retried step) with other bytes' hash: the first row stands
    const again = await recordAssetFenced(database.db, row(a1.attemptId, 'sha-b'), a1);
    expect(again).toMatchObject({ outcome: 'published', row: { sha256: 'sha-a' } });
    expect(await checkPublishableOnce(database.db, a1)).toBe('published');
    const rows = await assetsForJob(database.db, job.id);
    expect(rows.map((r) => [r.finalKey, r.sha256])).toEqual([[finalKey, 'sha-a']]);
  });
  it('a final key left without a row is released only once its job is final, and only once', async () => {
    const { database, job, owner, finalKey } = await setup('orphan.png');
    const a1 = owner(job.attemptId!, job.epoch);
    expect(await repoWrite(database, (tx) => claimAssetOwnership(tx, a1))).toBe('owned');
    const mine = (claims: { finalKey: string }[]) => claims.filter((c) => c.finalKey === finalKey);
    // (its bytes were published, its row never written) — still running: a retry may adopt them
    expect(mine(await orphanedAssetClaims(database.db))).toEqual([]);
    const claim = { finalKey, jobId: job.id, attemptId: a1.attemptId };
    expect(await releaseAssetClaim(database.db, claim)).toBe(false);
    await repoWrite(database, (tx) =>
      transitionJob(tx, { id: job.id, event: 'succeed', epoch: job.epoch, output: {} }),
    );
    expect(mine(await orphanedAssetClaims(database.db))).toEqual([claim]);
    expect(await releaseAssetClaim(database.db, claim)).toBe(true);
    expect(await releaseAssetClaim(database.db, claim)).toBe(false);
    expect(mine(await orphanedAssetClaims(database.db))).toEqual([]);
  });

  it('a key with an asset row is never an orphan, whatever the job state', async () => {
    const { database, job, owner, row, finalKey } = await setup('kept.png');
    const a1 = owner(job.attemptId!, job.epoch);
    expect(await repoWrite(database, (tx) => claimAssetOwnership(tx, a1))).toBe('owned');
    expect((await recordAssetFenced(database.db, row(a1.attemptId), a1)).outcome).toBe('inserted');
    await repoWrite(database, (tx) =>
      transitionJob(tx, { id: job.id, event: 'succeed', epoch: job.epoch, output: {} }),
    );
    expect((await orphanedAssetClaims(database.db)).map((c) => c.finalKey)).not.toContain(finalKey);
    expect(
      await releaseAssetClaim(database.db, { finalKey, jobId: job.id, attemptId: a1.attemptId }),
    ).toBe(false);
  });
  done();
}
