// A unit-checkpoint `store` for tests of the checkpoint seam alone: each result stored at once by
// storage's fenced single-row insert (what the attempt writer does for a paid unit).
import { storeUnitResult, type SluiceDatabase, type UnitWrite } from '@sluice/storage';

export function storeNow(
  database: SluiceDatabase,
  job: { id: string; epoch: number },
): (unit: UnitWrite) => Promise<'stored' | 'fenced'> {
  return async (unit) => {
    const outcome = await storeUnitResult(database.db, {
      jobId: job.id,
      unitKey: unit.unitKey,
      result: unit.result,
      assetKey: unit.assetKey ?? null,
      attemptId: `a${job.epoch}`,
      epoch: job.epoch,
    });
    return outcome === 'fenced' ? 'fenced' : 'stored';
  };
}
