// Catches blobs nobody can find: a staging blob left behind by a crashed attempt, or a final
// blob published without its row (a crash between the publish and the row). Worker processes
// SIGKILL themselves between the blob write and the publish, and between the publish and the
// row; after the finishing worker's sweep every blob under each job's prefix must have an asset
// row, and no staging blob may remain (no attempt is live any more).
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { runAssetJobs, useAssetRunEnv } from '../testing/asset-runs.js';
import { recordFigures } from '../testing/figures.js';

describeEachDialect('asset never orphaned', (ctx) => {
  const env = useAssetRunEnv();

  it(
    'after crashes around the publish and the sweep, every blob has its row',
    { timeout: 240_000 },
    async () => {
      const started = Date.now();
      const jobs = Array.from({ length: 3 }, () => ({
        call: 'safe' as const,
        units: 2,
        asset: true,
        finalAsset: true,
      }));
      const run = await runAssetJobs(ctx(), env(), jobs, [
        'after-blob-write-before-publish@2',
        'after-publish-before-row@1',
        'after-blob-write-before-publish@1',
      ]);
      expect(
        run.rows.map((r) => r.state),
        run.output,
      ).toEqual(jobs.map(() => 'succeeded'));
      let blobs = 0;
      let orphans = 0;
      for (const [id, audit] of run.audits) {
        expect(audit.orphans, id).toEqual([]);
        expect(audit.ghosts, id).toEqual([]);
        expect(audit.rows, id).toHaveLength(3); // out.bin of u0 and u1, final.bin
        blobs += audit.rows.length;
        orphans += audit.orphans.length;
      }
      // The crash between publish and row left a final blob without its row: it was adopted.
      expect(run.output).toMatch(/CRASHPOINT after-publish-before-row@1: SIGKILL/);
      expect(run.output).toMatch(/^ASSET \S+ \S+ reused /m);
      recordFigures('asset-never-orphaned', {
        dialect: ctx().dialect,
        jobs: jobs.length,
        crashes: 3,
        asset_rows: blobs,
        orphans,
        staging_left: [...run.audits.values()].reduce((n, a) => n + a.staging.length, 0),
        ms: Date.now() - started,
      });
    },
  );
});
