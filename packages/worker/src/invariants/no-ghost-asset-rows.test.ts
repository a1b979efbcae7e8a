// Catches asset rows that point at nothing (the database says the file exists, the blob store has none):
// a row written before its blob, a blob deleted under a row, or a row whose size or hash is not
// the blob's (a rewrite after the row). Worker processes SIGKILL themselves between the publish
// and the row, after a unit checkpoint and during finalize (which runs again and writes its
// render again); every asset row must then name a blob with exactly its size and sha256.
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { runAssetJobs, useAssetRunEnv } from '../testing/asset-runs.js';
import { recordFigures } from '../testing/figures.js';

describeEachDialect('no ghost asset rows', (ctx) => {
  const env = useAssetRunEnv();

  it(
    'every asset row names a blob of its recorded size and sha256',
    { timeout: 240_000 },
    async () => {
      const started = Date.now();
      const jobs = Array.from({ length: 3 }, () => ({
        call: 'safe' as const,
        units: 2,
        asset: true,
        finalAsset: true,
      }));
      // Ordered so each crash point is still ahead of the worker that waits for it, whatever the
      // timing: the first worker dies at its 2nd stored unit (no job can have reached finalize),
      // the second at its 2nd publish (at most one job finalized), the third at its first finalize.
      // (A unit crash last could find every unit done by the earlier workers and never fire.)
      const run = await runAssetJobs(ctx(), env(), jobs, [
        'after-unit-checkpoint@2',
        'after-publish-before-row@2',
        'during-finalize@1',
      ]);
      expect(
        run.rows.map((r) => r.state),
        run.output,
      ).toEqual(jobs.map(() => 'succeeded'));
      let rows = 0;
      let ghosts = 0;
      for (const [id, audit] of run.audits) {
        expect(audit.ghosts, id).toEqual([]);
        expect(audit.rows, id).toHaveLength(3);
        rows += audit.rows.length;
        ghosts += audit.ghosts.length;
      }
      recordFigures('no-ghost-asset-rows', {
        dialect: ctx().dialect,
        jobs: jobs.length,
        crashes: 3,
        asset_rows: rows,
        ghost_rows: ghosts,
        ms: Date.now() - started,
      });
    },
  );
});
