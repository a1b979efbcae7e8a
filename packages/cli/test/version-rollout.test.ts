// Catches a rollout that is more than its number: a version chosen anywhere but at accept, a
// share that drifts from the percentage, a rollback that needs anything besides setting the
// number back, or jobs already accepted on the next version silently moved back. The chain is
// the product's own: `SLUICE_ROLLOUT_<KIND>` → `resolveSettings` → the gateway `sluice gateway`
// starts → `jobs.submit` over HTTP with the typed client, 1,000 submissions per setting.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSluiceClient } from '@sluice/client';
import { defineJob, defineJobs, parseJobId } from '@sluice/contracts';
import { createApiKey, createLocalBlobStore, getJobsByIds, heartbeatServed } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { UNLIMITED_RATE } from '@sluice/gateway';
import { startGateway } from '../src/commands/gateway.js';
import { resolveSettings, rolloutEnvName } from '../src/define-config.js';

const jobs = defineJobs(
  defineJob({
    kind: 'demo.rollout',
    versions: { current: 'v1', next: 'v2' },
    input: z.object({ n: z.number().int() }),
    output: z.object({ n: z.number().int() }),
  }),
);
const KIND = 'demo.rollout';
const N = 1000;

describeEachDialect('version rollout is the number', (ctx) => {
  let blobsDir: string;
  let apiKey: string;
  beforeAll(async () => {
    blobsDir = mkdtempSync(join(tmpdir(), 'sluice-rollout-'));
    const db = ctx().database.db;
    apiKey = (await createApiKey(db, 'acme')).key;
    // Both versions have live workers, so every job is queued on the version chosen for it.
    await heartbeatServed(
      db,
      'rollout-test',
      [
        { kind: KIND, version: 'v1' },
        { kind: KIND, version: 'v2' },
      ],
      600_000,
    );
  });
  afterAll(() => rmSync(blobsDir, { recursive: true, force: true }));

  /** Starts a gateway from config + this environment, submits N jobs, returns their ids. */
  async function phase(percent: string, tag: string): Promise<string[]> {
    const settings = resolveSettings(
      // The config says 0; the environment variable is the only thing that changes.
      // Unlimited rates: 1,000 submits in a burst measure the rollout, not the rate limit.
      {
        jobs,
        rollout: { [KIND]: 0 },
        limits: { keyRate: UNLIMITED_RATE, tenantRate: UNLIMITED_RATE },
      },
      { PORT: '0', SLUICE_BLOBS_DIR: blobsDir, [rolloutEnvName(KIND)]: percent },
    );
    const gateway = await startGateway(settings, {
      database: ctx().database,
      blobs: createLocalBlobStore(blobsDir),
      close: async () => {},
    });
    const client = createSluiceClient<typeof jobs>({ url: gateway.running.url, apiKey });
    try {
      const ids = new Array<string>(N);
      let next = 0;
      const lane = async () => {
        while (next < N) {
          const i = next++;
          const h = await client.submit(KIND, { n: i }, { idempotencyKey: `${tag}-${i}` });
          ids[i] = h.id;
        }
      };
      await Promise.all(Array.from({ length: 8 }, lane));
      return ids;
    } finally {
      await client.close();
      await gateway.close();
    }
  }

  const versions = (ids: readonly string[]) => ids.map((id) => parseJobId(id)?.version);
  const share = (ids: readonly string[]) =>
    (100 * versions(ids).filter((v) => v === 'v2').length) / ids.length;

  it(
    '0 → all v1; 30 → 30 ± 3 % v2; back to 0 → all v1, and v2 jobs stay v2',
    { timeout: 180_000 },
    async () => {
      const started = Date.now();
      const off = await phase('0', 'off');
      expect(versions(off).every((v) => v === 'v1')).toBe(true);

      const on = await phase('30', 'on');
      const pct = share(on);
      expect(pct).toBeGreaterThanOrEqual(27);
      expect(pct).toBeLessThanOrEqual(33);

      const back = await phase('0', 'back');
      expect(versions(back).every((v) => v === 'v1')).toBe(true);

      // The version was chosen once, at accept: rows carry it, and the rollback moved no job.
      const rows = await getJobsByIds(ctx().database.db, on);
      for (const id of on) {
        const row = rows.get(id);
        expect(row?.version).toBe(parseJobId(id)?.version);
        expect(row?.state).toBe('queued');
      }
      console.log(
        `[figures] ${JSON.stringify({
          scenario: 'version-rollout',
          dialect: ctx().dialect,
          submissions_per_phase: N,
          v2_share_at_0: share(off),
          v2_share_at_30: pct,
          v2_share_after_rollback: share(back),
          ms: Date.now() - started,
        })}`,
      );
    },
  );
});
