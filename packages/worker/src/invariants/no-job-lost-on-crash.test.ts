// Catches lost work when a worker process dies mid-job: a claim that never expires, a reclaim
// that does not happen, or a job finished twice. A real OS process is SIGKILLed while it runs
// jobs; another worker process must take them over after the lease and finish each exactly once.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getJobsByIds, listEvents } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { spawnNode, waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { submitXpJobs } from '../testing/submit-xp-jobs.js';

const entry = new URL('../testing/worker-child.ts', import.meta.url);

describeEachDialect('a worker process killed mid-job loses no job', (ctx) => {
  it(
    'the lease expires, another process finishes every job exactly once',
    { timeout: 90_000 },
    async () => {
      const { database, url } = ctx();
      const env = {
        DB_URL: url,
        LEASE_MS: '1000',
        RENEW_MS: '250',
        UNIT_MS: '250',
        UNITS: '6',
        CONCURRENCY: '6',
      };
      const go = join(mkdtempSync(join(tmpdir(), 'sluice-go-')), 'go');
      // B is loaded and waiting before A dies, so the figure below is the takeover alone.
      await using b = await spawnNode(entry, {
        env: { ...env, WORKER_ID: 'xp-b', GO_FILE: go },
        readyLine: /LOADED/,
      });
      await using a = await spawnNode(entry, {
        env: { ...env, WORKER_ID: 'xp-a' },
        readyLine: /READY/,
      });
      const ids = await submitXpJobs(database, 6);
      await a.waitForLine(/UNIT \S+ u1/, 20_000);
      const startedByA = [...a.output().matchAll(/STARTED (\S+) 1/g)].map((m) => m[1] as string);
      expect(startedByA.length).toBeGreaterThan(0);
      await a.kill();
      const killedAt = Date.now();
      writeFileSync(go, '');
      await b.waitForLine(/READY/);
      const taken = await waitFor(
        async () => {
          const rows = await getJobsByIds(database.db, startedByA);
          return [...rows.values()].some((r) => r.attempts >= 2) ? Date.now() : 0;
        },
        { timeoutMs: 20_000, intervalMs: 10, message: 'a killed job reclaimed' },
      );
      await waitFor(
        async () =>
          [...(await getJobsByIds(database.db, ids)).values()].every(
            (r) => r.state === 'succeeded',
          ),
        { timeoutMs: 30_000, message: 'every job succeeded' },
      );
      const rows = await getJobsByIds(database.db, ids);
      for (const id of ids) {
        const terminal = (await listEvents(database.db, id)).filter(
          (e) => e.type === 'state' && e.to === 'succeeded',
        );
        expect(terminal, id).toHaveLength(1);
      }
      for (const id of startedByA) {
        const row = rows.get(id);
        // Unless A finished it before the kill, A's attempt was taken over.
        if ((row?.output as { by?: string }).by === 'xp-b') expect(row?.attempts).toBe(2);
      }
      const left = await database.db
        .selectFrom('jobs')
        .select('id')
        .where('state', 'in', ['queued', 'running'])
        .execute();
      expect(left).toEqual([]);
      console.log(
        `[${database.dialect.name}] SIGKILL: ${startedByA.length} jobs mid-run; first reclaim ${taken - killedAt} ms after the kill (lease 1000 ms, renewal 250 ms)`,
      );
      await b.stop();
    },
  );
});
