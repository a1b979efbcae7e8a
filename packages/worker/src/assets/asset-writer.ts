// The asset write protocol for one attempt: blob before row, row checked before publish, so a
// retry never finds a row without its bytes and a zombie attempt never publishes:
//
//   1. ownership row: the deterministic final key + this attempt's id, epoch and staging key
//      ('published' → reuse the asset, the body is cancelled unread; 'fenced' → the attempt lost
//      its job).
//   2. stream the bytes to this attempt's staging key (`BlobStore.put` streams; size and sha256
//      are computed on the way).
//   3. still this attempt's ownership row, still its job, no asset row → publish write-if-absent
//      → insert the asset row: one transaction, or on D1 one check statement and one fenced
//      atomic batch (asset-publish.ts). A final key already there without a row was published by
//      an attempt that crashed (or was fenced) before its row: adopt those bytes (hashed outside
//      any transaction, then recorded fenced), never overwrite them.
//
// Cleanup deletes this attempt's OWN staging key only; the final key is never deleted here (it
// may be another attempt's finished work). Staging keys of dead attempts are the sweeper's.

import { randomToken, NonRetriableError, SluiceError, isSluiceError } from '@sluice/contracts';
import {
  assetKeyWeb,
  getAsset,
  stagingKey,
  type AssetRow,
  type BlobStore,
  type SluiceDatabase,
} from '@sluice/storage/d1';
import { createSha256 } from './sha256.js';
import { DEFAULT_HOOKS, type WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';
import { createAssetPublisher, type PublishStep } from './asset-publish.js';
import { decideClaim } from './decide-asset.js';
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

  const attemptOf = () => ({ attemptId: job.attemptId, epoch: job.epoch });
  const publisher = createAssetPublisher({ database, blobs, job, hooks });

  async function reuse(finalKey: string): Promise<WrittenAsset> {
    const row = await getAsset(db, finalKey);
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
    const claimed = await publisher.claim({
      finalKey,
      jobId: job.id,
      unitKey: scope,
      name: asset.name,
      stagingKey: staging,
      ...attemptOf(),
    });
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

    // 3. Check, publish write-if-absent, insert the row (asset-publish.ts).
    let step: PublishStep;
    try {
      step = await publisher.publish(staging, row(staged.size, staged.sha256));
    } catch (error) {
      // Nothing committed; if the blob was published, the next attempt adopts it.
      await blobs.delete(staging).catch(() => {});
      throw error;
    }
    switch (step.kind) {
      case 'done':
        if (deps.counters) deps.counters.assetsPublished++;
        return written(step.row, false);
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
    const result = await publisher.recordAdopted(row(size, sha256));
    if (result === 'abort') throw fenced(`asset at ${finalKey}`);
    if (result === 'reuse') return reuse(finalKey);
    if (deps.counters) deps.counters.assetsReused++;
    deps.logger?.info('adopted an asset published by a crashed attempt', { key: finalKey, size });
    // Reused: the bytes are the crashed attempt's, not this body.
    return written(result, true);
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
