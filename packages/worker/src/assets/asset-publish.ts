// The asset protocol's database steps in the two forms a database allows, chosen by its
// capability (`interactiveTransactions`), never by its name:
//
// - transactional (SQLite, PostgreSQL): the check, the write-if-absent publish and the row in ONE
//   transaction; where the database has row locks (PostgreSQL) the job row is locked first, so a
//   takeover cannot commit between the check and the row (SQLite's BEGIN IMMEDIATE already
//   serialises writers).
// - batch (D1, no interactive transactions): the check is ONE statement, the publish follows, and
//   the row goes in with ONE atomic batch whose insert carries the ownership and epoch fence
//   (storage `recordAssetFenced`). A takeover between the check and the row leaves bytes at the
//   final key without a row: never overwritten (write-if-absent), adopted by the live attempt
//   like a crash between publish and row.

import {
  checkPublishable,
  checkPublishableOnce,
  claimAssetOwnership,
  insertAsset,
  lockJobs,
  recordAssetFenced,
  type AssetRow,
  type BlobStore,
  type Db,
  type Ownership,
  type SluiceDatabase,
} from '@sluice/storage/d1';
import type { WorkerHooks } from '../hooks.js';
import {
  decideAfterPublish,
  decidePublish,
  type ClaimOutcome,
  type PublishCheck,
} from './decide-asset.js';

export type AssetRowInput = Omit<AssetRow, 'createdAt'>;

/** Step 3's result: `adopt` means the final key holds bytes (of a crashed or fenced attempt) but no row. */
export type PublishStep =
  { kind: 'done'; row: AssetRow } | { kind: 'abort' } | { kind: 'reuse' } | { kind: 'adopt' };

export interface AssetPublisher {
  /** Step 1: the ownership row. */
  claim(o: Ownership): Promise<ClaimOutcome>;
  /** Step 3: check, publish `staging` to the row's final key write-if-absent, record the row. */
  publish(staging: string, row: AssetRowInput): Promise<PublishStep>;
  /** Records bytes already at the final key (hashed by the caller): the row, or why not. */
  recordAdopted(row: AssetRowInput): Promise<AssetRow | 'reuse' | 'abort'>;
}

export interface AssetPublisherDeps {
  database: SluiceDatabase;
  blobs: BlobStore;
  job: { id: string; attemptId: string; epoch: number };
  hooks: WorkerHooks;
}

export function createAssetPublisher(deps: AssetPublisherDeps): AssetPublisher {
  return deps.database.capabilities.interactiveTransactions
    ? transactionalPublisher(deps)
    : batchPublisher(deps);
}

function transactionalPublisher({
  database,
  blobs,
  job,
  hooks,
}: AssetPublisherDeps): AssetPublisher {
  async function check(tx: Db, finalKey: string): Promise<PublishCheck> {
    // Hold the job row (where the database has row locks) so a takeover cannot commit between
    // the check and the row.
    await lockJobs(tx, [job.id]);
    const answer = await checkPublishable(tx, {
      finalKey,
      jobId: job.id,
      attemptId: job.attemptId,
      epoch: job.epoch,
    });
    return hooks.mayPublish(answer) ? 'ok' : answer;
  }
  return {
    claim: (o) => database.transaction((tx) => claimAssetOwnership(tx, o)),
    publish: (staging, row) =>
      database.transaction(async (tx): Promise<PublishStep> => {
        const plan = decidePublish(await check(tx, row.finalKey));
        if (plan.kind !== 'publish') return { kind: plan.kind };
        const after = decideAfterPublish(await blobs.publish(staging, row.finalKey));
        if (after.kind === 'adopt') return { kind: 'adopt' };
        hooks.at('after-publish-before-row');
        return { kind: 'done', row: await insertAsset(tx, row) };
      }),
    recordAdopted: (row) =>
      database.transaction(async (tx) => {
        const plan = decidePublish(await check(tx, row.finalKey));
        if (plan.kind === 'publish') return insertAsset(tx, row);
        return plan.kind;
      }),
  };
}

function batchPublisher({ database, blobs, job, hooks }: AssetPublisherDeps): AssetPublisher {
  const db = database.db;
  const fence = { epoch: job.epoch };
  async function record(row: AssetRowInput): Promise<AssetRow | 'reuse' | 'abort'> {
    const r = await recordAssetFenced(db, row, fence);
    if (r.outcome === 'inserted') return r.row;
    return r.outcome === 'published' ? 'reuse' : 'abort';
  }
  return {
    // One conditional statement on D1 (storage claimAssetOwnershipOnce).
    claim: (o) => claimAssetOwnership(db, o),
    async publish(staging, row) {
      const answer = await checkPublishableOnce(db, {
        finalKey: row.finalKey,
        jobId: job.id,
        attemptId: job.attemptId,
        epoch: job.epoch,
      });
      const plan = decidePublish(hooks.mayPublish(answer) ? 'ok' : answer);
      if (plan.kind !== 'publish') return { kind: plan.kind };
      const after = decideAfterPublish(await blobs.publish(staging, row.finalKey));
      if (after.kind === 'adopt') return { kind: 'adopt' };
      hooks.at('after-publish-before-row');
      const recorded = await record(row);
      return typeof recorded === 'string' ? { kind: recorded } : { kind: 'done', row: recorded };
    },
    // The fenced insert is itself the check: inserted, already there, or no longer ours.
    recordAdopted: record,
  };
}
