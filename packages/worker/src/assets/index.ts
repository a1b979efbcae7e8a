// The asset protocol: re-exports only.
export { createAssetWriter, type AssetWriter, type AssetWriterDeps } from './asset-writer.js';
export {
  createAttemptAssets,
  createRefusingAssets,
  LARGE_RESULT_NAME,
  type AttemptAssets,
} from './attempt-assets.js';
export {
  decideAfterPublish,
  decideClaim,
  decidePublish,
  decideStagingSweep,
  parseStagingKey,
  type AfterPublish,
  type ClaimOutcome,
  type ClaimPlan,
  type PublishCheck,
  type PublishPlan,
  type PublishResult,
  type StagingFacts,
  type StagingKeyParts,
  type SweepVerdict,
} from './decide-asset.js';
export { STAGING_ROOT, sweepStaging, type StagingSweepOptions } from './staging-sweeper.js';
export { sweepOrphanAssets, type OrphanAssetSweepOptions } from './orphan-sweeper.js';
export type { AssetBody, AssetClient, AssetWrite, WrittenAsset } from './types.js';
