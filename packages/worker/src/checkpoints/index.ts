// Unit checkpoints: re-exports only.
export {
  createUnitCheckpoints,
  INLINE_RESULT_LIMIT_BYTES,
  RESULT_HARD_CAP_BYTES,
} from './unit-checkpoints.js';
export type {
  LargeResultStore,
  UnitCheckpoints,
  UnitCheckpointsOptions,
} from './unit-checkpoints.js';
