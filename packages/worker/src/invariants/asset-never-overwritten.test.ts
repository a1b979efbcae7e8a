// Catches a retry that rewrites a published file: the same unit (or finalize) run again by a
// later attempt, in the same process after a failure or in another process after a crash,
// produces DIFFERENT bytes (they name the worker and the attempt) for the same key. The bytes
// stored must stay the first published ones, byte for byte, and every later write must be told
// it reused them.
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { assetLines, runAssetJobs, useAssetRunEnv } from '../testing/asset-runs.js';
import { sha256 } from '../testing/asset-fixture.js';
import { recordFigures } from '../testing/figures.js';

describeEachDialect('asset never overwritten', (ctx) => {
  const env = useAssetRunEnv();

  it(
    'a later attempt with different bytes never changes a published blob',
    { timeout: 240_000 },
    async () => {
      const started = Date.now();
      const jobs = [
        // u1 fails after writing its asset; attempt 2 writes it again with other bytes.
        { call: 'safe' as const, units: 2, asset: true, finalAsset: true, failOnce: 'u1' },
        // finalize fails after writing its render; attempt 2 renders again.
        { call: 'safe' as const, units: 1, asset: true, finalAsset: true, finalizeFailsOnce: true },
        // A crash after finalize: another process renders again.
        { call: 'safe' as const, units: 1, asset: true, finalAsset: true },
      ];
      const run = await runAssetJobs(ctx(), env(), jobs, ['during-finalize@3']);
      expect(
        run.rows.map((r) => r.state),
        run.output,
      ).toEqual(jobs.map(() => 'succeeded'));

      const lines = assetLines(run.output);
      let rewrites = 0;
      let overwritten = 0;
      for (const [id, audit] of run.audits) {
        expect(audit.ghosts, id).toEqual([]);
        for (const row of audit.rows) {
          const scope = row.unitKey === 'finalize' ? 'finalize' : row.unitKey.replace(/^unit:/, '');
          const writes = lines.filter((l) => l.jobId === id && l.scope === scope);
          const [first, ...later] = writes;
          expect(first?.how, `${id} ${scope}`).toBe('published');
          const bytes = Buffer.from(
            await new Response(await env().blobs.get(row.finalKey)).arrayBuffer(),
          );
          // Byte for byte the first published render, whatever the later attempts produced.
          if (sha256(bytes) !== first?.sha) overwritten++;
          expect(row.sha256).toBe(first?.sha);
          for (const l of later) {
            expect(l).toMatchObject({ how: 'reused', sha: first?.sha });
            rewrites++;
          }
        }
      }
      // Each job re-ran one asset write with different bytes (u1, finalize, finalize after a crash).
      expect(rewrites).toBeGreaterThanOrEqual(3);
      expect(overwritten).toBe(0);
      recordFigures('asset-never-overwritten', {
        dialect: ctx().dialect,
        jobs: jobs.length,
        rewrites_attempted: rewrites,
        overwritten,
        ms: Date.now() - started,
      });
    },
  );
});
