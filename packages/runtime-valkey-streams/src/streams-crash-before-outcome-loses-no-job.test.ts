// Catches a delivery acknowledged before its outcome is stored: a Streams worker process dies
// after deciding a job's outcome and before writing it. The entry must still be pending, so
// another worker claims it after the idle time and the job ends, exactly once. With the ack moved
// ahead of the write (seeded bug `ack-before-terminal`) the entry is gone and the job is lost.

import { getJobsByIds } from '@sluice/storage';
import { spawnNode, waitFor } from '@sluice/testkit';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useStreamsXpSuite, XP_DIALECT } from './testing/streams-xp-suite.js';
import { submitXpDispatchedJobs, terminalEventCounts } from '@sluice/worker/conformance';

const entry = new URL('./testing/streams-worker-child.ts', import.meta.url);
const suite = useStreamsXpSuite();

it(
  `a worker killed between deciding and storing an outcome loses no job [${XP_DIALECT}]`,
  { timeout: 90_000 },
  async () => {
    const { fx, db } = suite;
    const env = {
      DB_URL: db.url,
      REDIS_URL: fx.server.url,
      LEASE_MS: '1000',
      RENEW_MS: '250',
      UNIT_MS: '20',
      UNITS: '1',
      CONCURRENCY: '4',
    };
    const go = join(mkdtempSync(join(tmpdir(), 'sluice-go-')), 'go');
    await using b = await spawnNode(entry, {
      env: { ...env, WORKER_ID: 'xp-b', GO_FILE: go },
      readyLine: /LOADED/,
    });
    await using a = await spawnNode(entry, {
      env: { ...env, WORKER_ID: 'xp-a', CRASHPOINTS: 'before-outcome-write@1' },
      readyLine: /READY/,
    });
    const [id] = (await submitXpDispatchedJobs(db.database, fx.dispatch, 1)) as [string];
    const exit = await Promise.race([
      a.exited,
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000)),
    ]);
    expect(exit === 'timeout' ? exit : exit.signal, a.output()).toBe('SIGKILL');
    writeFileSync(go, '');
    await waitFor(
      async () => (await getJobsByIds(db.database.db, [id])).get(id)?.state === 'succeeded',
      { timeoutMs: 20_000, message: `the job ends after the crash\n${b.output()}` },
    );
    const row = (await getJobsByIds(db.database.db, [id])).get(id);
    expect((row?.output as { by?: string }).by).toBe('xp-b');
    expect(await terminalEventCounts(db.database, [id])).toEqual([1]);
    await waitFor(async () => (await fx.pendingCount(fx.keys.jobs('xp.work', 'v1'))) === 0, {
      message: 'PEL drained',
    });
    await b.stop();
  },
);
