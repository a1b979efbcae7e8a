// `ctx.assets` per stage of one attempt. A unit's `execute` writes under its own scope
// (`unit:<key>`), finalize under `finalize`, and a large step result under `checkpoint:<step>`:
// distinct scopes give distinct final keys, so no write can land on another's key. prepare and
// apply may read but not write (like provider calls, their writes would have no unit to belong
// to). Without a blob store every call says so.

import { NonRetriableError, SluiceError } from '@sluice/contracts';
import type { BlobStore } from '@sluice/storage';
import type { LargeResultStore } from '../checkpoints/unit-checkpoints.js';
import { createAssetWriter, type AssetWriterDeps } from './asset-writer.js';
import type { AssetClient } from './types.js';

export interface AttemptAssets {
  /** The client of one unit's `execute`. */
  forUnit(unitKey: string): AssetClient;
  /** prepare and apply read only; finalize writes the job's final assets. */
  forStage(stage: 'prepare' | 'apply' | 'finalize'): AssetClient;
  /** Step results too large for a units row (undefined without a blob store). */
  readonly largeResults: LargeResultStore | undefined;
}

export const LARGE_RESULT_NAME = 'result.json';

export function createAttemptAssets(
  deps: Omit<AssetWriterDeps, 'blobs'> & { blobs: BlobStore | undefined },
): AttemptAssets {
  const { blobs } = deps;
  if (!blobs) return createRefusingAssets('the worker has no blob store (createWorker `blobs`)');
  const writer = createAssetWriter({ ...deps, blobs });
  const client = (scope: string): AssetClient => ({
    write: (asset) => writer.write(scope, asset),
    open: (key) => writer.open(key),
  });
  const readOnly = (stage: string): AssetClient => ({
    write: () =>
      Promise.reject(
        new NonRetriableError(
          `ctx.assets.write is not allowed in ${stage}: write assets in execute (per unit) or finalize`,
        ),
      ),
    open: (key) => writer.open(key),
  });
  return {
    forUnit: (unitKey) => client(`unit:${unitKey}`),
    forStage: (stage) => (stage === 'finalize' ? client('finalize') : readOnly(stage)),
    largeResults: {
      async put({ stepName, json }) {
        const asset = await writer.write(`checkpoint:${stepName}`, {
          name: LARGE_RESULT_NAME,
          body: json,
          contentType: 'application/json',
        });
        return asset.key;
      },
      async get(key) {
        const body = await writer.open(key);
        return new Response(body).text();
      },
    },
  };
}

/** Every call fails with `reason` (no blob store, or a run without an attempt). */
export function createRefusingAssets(reason: string): AttemptAssets {
  const refuse = () => Promise.reject(new SluiceError('INVALID_CONFIG', reason));
  const client: AssetClient = { write: refuse, open: refuse };
  return { forUnit: () => client, forStage: () => client, largeResults: undefined };
}
