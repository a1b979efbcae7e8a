// The asset write protocol for one attempt (ARCHITECTURE.md: blob before row, row checked before publish):
//
//   1. ownership row: the deterministic final key + this attempt's id, epoch and staging key
//      ('published' → reuse the asset, the body is cancelled unread; 'fenced' → the attempt lost
//      its job).
//   2. stream the bytes to this attempt's staging key (`BlobStore.put` streams; size and sha256
//      are computed on the way).
//   3. ONE transaction: still this attempt's ownership row, still its job, no asset row → publish
//      write-if-absent → insert the asset row. A final key already there without a row was
//      published by an attempt that crashed before its row: adopt those bytes (hashed outside
//      the transaction, then recorded in a second one), never overwrite them.
//
// Cleanup deletes this attempt's OWN staging key only; the final key is never deleted here (it
// may be another attempt's finished work). Staging keys of dead attempts are the sweeper's.

import { randomToken, NonRetriableError, SluiceError, isSluiceError } from '@sluice/contracts';
import {
  assetKeyWeb,
  checkPublishable,
  claimAssetOwnership,
  getAsset,
  insertAsset,
  stagingKey,
  type AssetRow,
  type BlobStore,
  type Db,
  type SluiceDatabase,
} from '@sluice/storage/d1';
import { createSha256 } from './sha256.js';
import { DEFAULT_HOOKS, type WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';
import {
  decideAfterPublish,
  decideClaim,
  decidePublish,
  type PublishCheck,
} from './decide-asset.js';
import type { AssetBody, AssetWrite, WrittenAsset } from './types.js';

export interface AssetWriterDeps {
  database: SluiceDatabase;
  blobs: BlobStore;
  job: { id: string; tenantId: string; attemptId: string; epoch: number };
  signal?: AbortSignal | undefined;
  /** The attempt's writes were fenced: it lost its job. */
  onFenced(): void;
  /** Test seams (crash points, the publish decision); the real ones by default. */
  hooks?: WorkerHooks | undefined;
  /** Runs before the ownership row is written (the attempt's lazy start lands first). */
  beforeWrite?: (() => Promise<void>) | undefined;
  counters?: Pick<WorkerCounters, 'assetsPublished' | 'assetsReused'> | undefined;
  logger?: WorkerLogger | undefined;
  /** Largest asset accepted (default: no limit). */
  maxBytes?: number | undefined;
}

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

async function* chunk(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

function toStream(body: AssetBody): AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> {
  if (typeof body === 'string') return chunk(new TextEncoder().encode(body));
  if (body instanceof Uint8Array) return chunk(body);
  return body;
}

/** The body will not be read (reuse, abort): let its producer stop and free what it holds. */
async function discard(body: AssetBody): Promise<void> {
  try {
    if (typeof body === 'string' || body instanceof Uint8Array) return;
    if (body instanceof ReadableStream) {
      await body.cancel();
      return;
    }
    await body[Symbol.asyncIterator]().return?.();
  } catch {
    // The producer failing while being cancelled changes nothing about the outcome.
  }
}

async function hashBlob(blobs: BlobStore, key: string): Promise<{ size: number; sha256: string }> {
  const stream = await blobs.get(key);
  if (!stream) throw new SluiceError('INTERNAL', `published blob ${key} vanished`);
  const hash = createSha256();
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    hash.update(value);
  }
  return { size, sha256: hash.digestHex() };
}

function written(row: AssetRow, reused: boolean): WrittenAsset {
  return { key: row.finalKey, size: row.size, sha256: row.sha256, reused };
}

/** Writes assets for one attempt; `scope` is `unit:<key>` or `finalize` (part of the final key). */
export function createAssetWriter(deps: AssetWriterDeps) {
  const { database, blobs, job } = deps;
  const db = database.db;
  const hooks = deps.hooks ?? DEFAULT_HOOKS;

  function fenced(what: string): SluiceError {
    deps.onFenced();
    return new SluiceError('LEASE_LOST', `${what}: this attempt no longer holds the job`);
  }

  /** PostgreSQL: hold the job row so a takeover cannot commit between the check and the row. */
  async function lockJob(tx: Db): Promise<void> {
    if (database.dialect !== 'postgres') return; // SQLite: BEGIN IMMEDIATE serialises writers
    await tx.selectFrom('jobs').select('id').where('id', '=', job.id).forUpdate().execute();
  }

  async function check(tx: Db, finalKey: string): Promise<PublishCheck> {
    await lockJob(tx);
    const answer = await checkPublishable(tx, { finalKey, jobId: job.id, ...attemptOf() });
    return hooks.mayPublish(answer) ? 'ok' : answer;
  }

  const attemptOf = () => ({ attemptId: job.attemptId, epoch: job.epoch });

  async function reuse(finalKey: string, tx: Db = db): Promise<WrittenAsset> {
    const row = await getAsset(tx, finalKey);
    if (!row)
      throw new SluiceError('INTERNAL', `asset ${finalKey} reported published but has no row`);
    if (deps.counters) deps.counters.assetsReused++;
    return written(row, true);
  }

  async function deleteOwnStaging(staging: string): Promise<void> {
    await blobs.delete(staging).catch((error: unknown) =>
      deps.logger?.warn('could not delete own staging blob; the sweeper will', {
        error,
        key: staging,
      }),
    );
  }

  type Row = Omit<AssetRow, 'createdAt'>;
  const rowOf =
    (scope: string, name: string, contentType: string, finalKey: string) =>
    (size: number, sha256: string): Row => ({
      finalKey,
      jobId: job.id,
      tenantId: job.tenantId,
      unitKey: scope,
      name,
      size,
      sha256,
      contentType,
      attemptId: job.attemptId,
    });

  async function write(scope: string, asset: AssetWrite): Promise<WrittenAsset> {
    if (!database.capabilities.interactiveTransactions) {
      // The publish below checks, publishes and inserts in ONE transaction; a database without
      // interactive transactions (D1) needs its statement/batch form, which is not built yet.
      // Refused before anything is claimed or staged, and the same on every retry.
      await discard(asset.body);
      throw new NonRetriableError(
        `ctx.assets.write("${asset.name}") refused: this database has no interactive transactions and the asset publish has no batch form yet (reads work)`,
      );
    }
    let finalKey: string;
    try {
      finalKey = await assetKeyWeb(job.tenantId, job.id, scope, asset.name);
    } catch (error) {
      await discard(asset.body);
      // A bad name fails the same way on every attempt.
      throw new NonRetriableError(
        isSluiceError(error) ? error.message : `invalid asset name "${asset.name}"`,
      );
    }
    const contentType = asset.contentType ?? DEFAULT_CONTENT_TYPE;
    const staging = stagingKey(job.tenantId, job.id, job.attemptId, randomToken());
    const row = rowOf(scope, asset.name, contentType, finalKey);

    // 1. The ownership row.
    try {
      await deps.beforeWrite?.();
    } catch (error) {
      await discard(asset.body);
      throw error;
    }
    const claimed = await database.transaction((tx) =>
      claimAssetOwnership(tx, {
        finalKey,
        jobId: job.id,
        unitKey: scope,
        name: asset.name,
        stagingKey: staging,
        ...attemptOf(),
      }),
    );
    switch (decideClaim(claimed)) {
      case 'reuse':
        await discard(asset.body);
        return reuse(finalKey);
      case 'abort':
        await discard(asset.body);
        throw fenced(`asset "${asset.name}"`);
      case 'stage':
        break;
    }

    // 2. The bytes, streamed to this attempt's staging key.
    let staged: { size: number; sha256: string };
    try {
      staged = await blobs.put(staging, toStream(asset.body), {
        maxBytes: deps.maxBytes,
        signal: deps.signal,
      });
    } catch (error) {
      await blobs.delete(staging).catch(() => {});
      if (isSluiceError(error) && error.code === 'PAYLOAD_TOO_LARGE') {
        throw new NonRetriableError(`asset "${asset.name}": ${error.message}`);
      }
      throw error;
    }
    hooks.at('after-blob-write-before-publish');

    // 3. Check, publish write-if-absent, insert the row: one transaction.
    type Step =
      | { kind: 'done'; result: WrittenAsset }
      | { kind: 'abort' }
      | { kind: 'reuse' }
      | { kind: 'adopt' };
    let step: Step;
    try {
      step = await database.transaction(async (tx): Promise<Step> => {
        const plan = decidePublish(await check(tx, finalKey));
        if (plan.kind !== 'publish') return { kind: plan.kind };
        const after = decideAfterPublish(await blobs.publish(staging, finalKey));
        if (after.kind === 'adopt') return { kind: 'adopt' };
        hooks.at('after-publish-before-row');
        const inserted = await insertAsset(tx, row(staged.size, staged.sha256));
        return { kind: 'done', result: written(inserted, false) };
      });
    } catch (error) {
      // Nothing committed; if the blob was published, the next attempt adopts it.
      await blobs.delete(staging).catch(() => {});
      throw error;
    }
    switch (step.kind) {
      case 'done':
        if (deps.counters) deps.counters.assetsPublished++;
        return step.result;
      case 'abort':
        await deleteOwnStaging(staging);
        throw fenced(`asset "${asset.name}"`);
      case 'reuse':
        await deleteOwnStaging(staging);
        return reuse(finalKey);
      case 'adopt':
        await deleteOwnStaging(staging);
        return adopt(finalKey, row);
    }
  }

  /** The final key holds a crashed attempt's bytes and no row: hash them, then record them. */
  async function adopt(
    finalKey: string,
    row: (size: number, sha256: string) => Row,
  ): Promise<WrittenAsset> {
    // Outside any transaction: hashing a large blob must not hold the database's write lock.
    // The final key is never overwritten, so the hash stays true.
    const { size, sha256 } = await hashBlob(blobs, finalKey);
    const result = await database.transaction(async (tx) => {
      const plan = decidePublish(await check(tx, finalKey));
      switch (plan.kind) {
        case 'publish':
          // Reused: the bytes are the crashed attempt's, not this body.
          return written(await insertAsset(tx, row(size, sha256)), true);
        case 'reuse':
          return undefined;
        case 'abort':
          return null;
      }
    });
    if (result === null) throw fenced(`asset at ${finalKey}`);
    if (result === undefined) return reuse(finalKey);
    if (deps.counters) deps.counters.assetsReused++;
    deps.logger?.info('adopted an asset published by a crashed attempt', { key: finalKey, size });
    return result;
  }

  async function open(key: string): Promise<ReadableStream<Uint8Array>> {
    const row = key.startsWith(`t/${job.tenantId}/`) ? await getAsset(db, key) : undefined;
    if (!row || row.tenantId !== job.tenantId) {
      throw new SluiceError('NOT_FOUND', `asset "${key}" does not exist in this tenant`);
    }
    const body = await blobs.get(key);
    if (!body) throw new SluiceError('INTERNAL', `asset "${key}" has a row but no blob`);
    return body;
  }

  return { write, open };
}

export type AssetWriter = ReturnType<typeof createAssetWriter>;
