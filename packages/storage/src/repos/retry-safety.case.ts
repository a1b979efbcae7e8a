import { formatJobId } from '@sluice/contracts';
import { expect } from 'vitest';
import { repoWrite, suiteIt, type NotApplicable, type SuiteDatabase } from '../testing/suite.js';
import type { SluiceDatabase } from '../database.js';
import {
  assetsForJob,
  checkPublishable,
  claimAssetOwnership,
  getAsset,
  insertAsset,
  liveAttemptOf,
  ownedStagingKeys,
} from './assets.js';
import { insertAssetIfOwner } from './assets-single.js';
import { insertJob, transitionJob } from './jobs.js';
import {
  authoriseCall,
  callsForJob,
  callsForUnit,
  countCalls,
  recordCallIntent,
  recordCallOutcome,
  recordExternalId,
} from './provider-calls.js';
import { getUnit, getUnits, storeUnitResult } from './units.js';

export async function runningJob(database: SluiceDatabase) {
  const id = formatJobId('v1');
  await repoWrite(database, (tx) =>
    insertJob(tx, {
      id,
      tenantId: 'acme',
      kind: 'video.render',
      version: 'v1',
      input: {},
      inputHash: 'h',
      maxAttempts: 3,
    }),
  );
  await repoWrite(database, (tx) => transitionJob(tx, { id, event: 'dispatch' }));
  const r = await repoWrite(database, (tx) => transitionJob(tx, { id, event: 'start' }));
  if (!r.ok) throw new Error('start failed');
  return r.job;
}

export async function reclaim(database: SluiceDatabase, id: string, epoch: number) {
  const r = await repoWrite(database, (tx) => transitionJob(tx, { id, event: 'reclaim', epoch }));
  if (!r.ok) throw new Error('reclaim failed');
  return r.job;
}

/** The suite, for every database (retry-safety.test.ts: Node; workerd/storage-d1.test.ts: D1). */
export function retrySafetyCases(
  label: string,
  ctx: () => SuiteDatabase,
  notApplicable: NotApplicable = {},
): void {
  const { it, done } = suiteIt(label, notApplicable);
  it('a unit checkpoint is stored once, by the live attempt, and looked up by unit key', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const a1 = { jobId: job.id, attemptId: job.attemptId!, epoch: job.epoch };
    expect(
      await storeUnitResult(database.db, { ...a1, unitKey: 'scene-1', result: { audio: 'x' } }),
    ).toBe('stored');
    expect(
      await storeUnitResult(database.db, { ...a1, unitKey: 'scene-1', result: { audio: 'OTHER' } }),
    ).toBe('exists');
    expect((await getUnit(database.db, job.id, 'scene-1'))?.result).toEqual({ audio: 'x' });
    expect(await getUnit(database.db, job.id, 'scene-2')).toBeUndefined();
    const next = await reclaim(database, job.id, job.epoch);
    // the old attempt is fenced off; the new one reuses scene-1 and stores scene-2
    expect(await storeUnitResult(database.db, { ...a1, unitKey: 'scene-2', result: 1 })).toBe(
      'fenced',
    );
    expect(
      await storeUnitResult(database.db, {
        jobId: job.id,
        attemptId: next.attemptId!,
        epoch: next.epoch,
        unitKey: 'scene-2',
        result: 2,
        assetKey: 'k',
      }),
    ).toBe('stored');
    const all = await getUnits(database.db, job.id);
    expect([...all.keys()].sort()).toEqual(['scene-1', 'scene-2']);
    expect(all.get('scene-2')).toMatchObject({ result: 2, assetKey: 'k', epoch: next.epoch });
  });

  it('the ledger row is written before sending, fenced, and keeps outcomes, external ids and authorisations', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const intent = {
      jobId: job.id,
      unitKey: 'scene-1',
      callName: 'tts',
      attemptId: job.attemptId!,
      epoch: job.epoch,
      stage: 'execute',
      provider: 'acme',
      modality: 'speech',
      callClass: 'pollable',
    };
    const row = await recordCallIntent(database.db, intent);
    expect(row).toMatchObject({
      outcome: 'pending',
      attempt: 1,
      tenantId: 'acme',
      externalId: null,
    });
    await recordExternalId(database.db, row!.id, 'ext-9');
    await recordCallOutcome(database.db, row!.id, {
      outcome: 'connection_dropped',
      error: { kind: 'unknown', message: 'socket hang up' },
    });
    const refused = await recordCallIntent(database.db, {
      ...intent,
      callName: 'bad',
      callClass: 'fail_closed',
      outcome: 'refused',
      error: 'undeclared',
    });
    expect(refused?.outcome).toBe('refused');
    const next = await reclaim(database, job.id, job.epoch);
    expect(await recordCallIntent(database.db, intent)).toBeUndefined(); // zombie: nothing written
    const again = await recordCallIntent(database.db, {
      ...intent,
      attemptId: next.attemptId!,
      epoch: next.epoch,
    });
    await recordCallOutcome(database.db, again!.id, {
      outcome: 'succeeded',
      response: { audio: 'a' },
    });
    await authoriseCall(database.db, {
      jobId: job.id,
      tenantId: 'acme',
      unitKey: 'scene-1',
      callName: 'tts',
      by: 'ops@acme',
      note: 'provider confirmed no charge',
    });
    const unit = await callsForUnit(database.db, job.id, 'scene-1', 'tts');
    expect(unit.map((c) => [c.outcome, c.externalId, c.attempt])).toEqual([
      ['connection_dropped', 'ext-9', 1],
      ['succeeded', null, 2],
      ['authorised', null, 0],
    ]);
    expect(unit[1]?.response).toEqual({ audio: 'a' });
    expect(unit[2]).toMatchObject({
      authorisedBy: 'ops@acme',
      note: 'provider confirmed no charge',
    });
    expect((await callsForJob(database.db, job.id)).length).toBe(4);
    const counts = await countCalls(database.db);
    expect(counts).toContainEqual({ callClass: 'pollable', outcome: 'succeeded', n: 1 });
    expect(counts).toContainEqual({ callClass: 'fail_closed', outcome: 'refused', n: 1 });
  });

  it('assets: one owner at a time, published once, reused after, never by a zombie', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const finalKey = `t/acme/j/${job.id}/assets/u/out.mp4`;
    const own = (attemptId: string, epoch: number, stagingKey: string) => ({
      finalKey,
      jobId: job.id,
      unitKey: 'u',
      name: 'out.mp4',
      attemptId,
      epoch,
      stagingKey,
    });
    const a1 = own(job.attemptId!, job.epoch, 'staging/a1');
    expect(await repoWrite(database, (tx) => claimAssetOwnership(tx, a1))).toBe('owned');
    expect([...(await ownedStagingKeys(database.db, job.id))]).toEqual(['staging/a1']);
    // attempt 1 is paused; attempt 2 takes over the job and the ownership row
    const next = await reclaim(database, job.id, job.epoch);
    const a2 = own(next.attemptId!, next.epoch, 'staging/a2');
    expect(await repoWrite(database, (tx) => claimAssetOwnership(tx, a1))).toBe('fenced');
    expect(await repoWrite(database, (tx) => claimAssetOwnership(tx, a2))).toBe('owned');
    expect([...(await ownedStagingKeys(database.db, job.id))]).toEqual(['staging/a2']);
    // the zombie cannot publish; the owner can, once
    expect(await repoWrite(database, (tx) => checkPublishable(tx, a1))).toBe('not_owner');
    expect(await repoWrite(database, (tx) => checkPublishable(tx, a2))).toBe('ok');
    await repoWrite(database, (tx) =>
      insertAsset(tx, {
        finalKey,
        jobId: job.id,
        tenantId: 'acme',
        unitKey: 'u',
        name: 'out.mp4',
        size: 3,
        sha256: 's',
        contentType: 'video/mp4',
        attemptId: a2.attemptId,
      }),
    );
    expect(await repoWrite(database, (tx) => checkPublishable(tx, a2))).toBe('published');
    expect(await repoWrite(database, (tx) => claimAssetOwnership(tx, a2))).toBe('published');
    expect((await getAsset(database.db, finalKey))?.attemptId).toBe(a2.attemptId);
    expect((await assetsForJob(database.db, job.id)).length).toBe(1);
    expect(await liveAttemptOf(database.db, job.id)).toEqual({
      attemptId: next.attemptId,
      state: 'running',
    });
    await repoWrite(database, (tx) =>
      transitionJob(tx, { id: job.id, event: 'succeed', epoch: next.epoch, output: {} }),
    );
    expect(await liveAttemptOf(database.db, job.id)).toEqual({
      attemptId: null,
      state: 'succeeded',
    });
    expect((await ownedStagingKeys(database.db, job.id)).size).toBe(0);
  });

  it('an asset row in one statement: only by the owner of the ownership row and the job, once', async () => {
    const { database } = ctx();
    const job = await runningJob(database);
    const finalKey = `t/acme/j/${job.id}/assets/u/one.png`;
    const a1 = {
      finalKey,
      jobId: job.id,
      unitKey: 'u',
      name: 'one.png',
      attemptId: job.attemptId!,
      epoch: job.epoch,
      stagingKey: 'staging/one-a1',
    };
    const row = (attemptId: string) => ({
      finalKey,
      jobId: job.id,
      tenantId: 'acme',
      unitKey: 'u',
      name: 'one.png',
      size: 3,
      sha256: 's',
      contentType: 'image/png',
      attemptId,
    });
    // no ownership row yet: refused
    expect(await insertAssetIfOwner(database.db, row(a1.attemptId), a1)).toEqual({
      outcome: 'not_owner',
    });
    expect(await repoWrite(database, (tx) => claimAssetOwnership(tx, a1))).toBe('owned');
    const next = await reclaim(database, job.id, job.epoch);
    // the zombie still holds the ownership row, but no longer the job: refused
    expect(await insertAssetIfOwner(database.db, row(a1.attemptId), a1)).toEqual({
      outcome: 'not_owner',
    });
    const a2 = {
      ...a1,
      attemptId: next.attemptId!,
      epoch: next.epoch,
      stagingKey: 'staging/one-a2',
    };
    // the live attempt without the ownership row: refused
    expect(await insertAssetIfOwner(database.db, row(a2.attemptId), a2)).toEqual({
      outcome: 'not_owner',
    });
    expect(await repoWrite(database, (tx) => claimAssetOwnership(tx, a2))).toBe('owned');
    const inserted = await insertAssetIfOwner(database.db, row(a2.attemptId), a2);
    expect(inserted).toMatchObject({ outcome: 'inserted', row: { attemptId: a2.attemptId } });
    expect(await insertAssetIfOwner(database.db, row(a2.attemptId), a2)).toEqual({
      outcome: 'published',
    });
    expect((await assetsForJob(database.db, job.id)).map((a) => a.finalKey)).toContain(finalKey);
  });
  done();
}
