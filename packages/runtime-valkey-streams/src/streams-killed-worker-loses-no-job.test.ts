// Catches lost or doubled work when a Streams worker process dies mid-job: entries stranded in a
// dead consumer's pending list (no XAUTOCLAIM), a claim before the idle threshold, or a job that
// ends twice. A real worker process is SIGKILLed while it runs jobs; another worker process must
// claim its entries after the idle time and finish every job exactly once, leaving no PEL.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseXPendingRange } from './replies.js';
import { getJobsByIds } from '@sluice/storage';
import { spawnNode, waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { useStreamsXpSuite, XP_DIALECT } from './testing/streams-xp-suite.js';
import {
  recordFigures,
  submitXpDispatchedJobs,
  terminalEventCounts,
} from '@sluice/worker/conformance';

const entry = new URL('./testing/streams-worker-child.ts', import.meta.url);
const dialect = XP_DIALECT;
const LEASE_MS = 1000;
const suite = useStreamsXpSuite();

it(
  `a SIGKILLed worker's jobs are claimed after the idle time and end exactly once [${dialect}]`,
  { timeout: 120_000 },
  async () => {
    const { fx, db } = suite;
    const { database, url } = db;
    const stream = fx.keys.jobs('xp.work', 'v1');
    const env = {
      DB_URL: url,
      REDIS_URL: fx.server.url,
      LEASE_MS: String(LEASE_MS),
      RENEW_MS: '250',
      UNIT_MS: '250',
      UNITS: '6',
      CONCURRENCY: '8',
    };
    const go = join(mkdtempSync(join(tmpdir(), 'sluice-go-')), 'go');
    await using b = await spawnNode(entry, {
      env: { ...env, WORKER_ID: 'xp-b', GO_FILE: go },
      readyLine: /LOADED/,
    });
    await using a = await spawnNode(entry, {
      env: { ...env, WORKER_ID: 'xp-a' },
      readyLine: /READY/,
    });
    const ids = await submitXpDispatchedJobs(database, fx.dispatch, 8);
    await a.waitForLine(/UNIT \S+ u1/, 20_000);
    const startedByA = [...a.output().matchAll(/STARTED (\S+) 1/g)].map((m) => m[1] as string);
    expect(startedByA.length).toBeGreaterThan(0);
    const owned = async (consumer: string) =>
      parseXPendingRange(await fx.redis.xpending(stream, fx.keys.group, '-', '+', 100)).filter(
        (p) => p.consumer === consumer,
      ).length;
    expect(await owned('xp-a')).toBeGreaterThan(0);
    // How long ago A last renewed its freshest entry: the idle clock of that entry started then,
    // not at the kill (renewals run every 250 ms, later on a loaded machine).
    const idleAtKill = Math.min(
      ...parseXPendingRange(await fx.redis.xpending(stream, fx.keys.group, '-', '+', 100))
        .filter((p) => p.consumer === 'xp-a')
        .map((p) => p.idleMs),
    );
    const killStartedAt = Date.now();
    await a.kill();
    const killedAt = Date.now();
    writeFileSync(go, '');
    const detectedAt = await waitFor(async () => ((await owned('xp-a')) === 0 ? Date.now() : 0), {
      timeoutMs: 20_000,
      intervalMs: 10,
      message: "the dead consumer's entries taken over",
    });
    const recoveredAt = await waitFor(
      async () => {
        const rows = await getJobsByIds(database.db, startedByA);
        return [...rows.values()].some((r) => r.attempts >= 2) ? Date.now() : 0;
      },
      { timeoutMs: 20_000, intervalMs: 10, message: 'a killed job running again' },
    );
    await waitFor(
      async () =>
        [...(await getJobsByIds(database.db, ids)).values()].every((r) => r.state === 'succeeded'),
      { timeoutMs: 40_000, message: 'every job succeeded' },
    );
    const terminal = await terminalEventCounts(database, ids);
    expect(terminal).toEqual(ids.map(() => 1));
    const rows = await getJobsByIds(database.db, ids);
    for (const id of startedByA) {
      // A's attempts that did not finish before the kill were taken over (attempt 2 by b).
      const row = rows.get(id);
      if ((row?.output as { by?: string }).by === 'xp-b') expect(row?.attempts).toBe(2);
    }
    await waitFor(async () => (await fx.pendingCount(stream)) === 0, { message: 'PEL drained' });
    expect(await fx.outstanding([stream])).toBe(0);
    const detectMs = detectedAt - killedAt;
    // The claim waits for the idle time; it must not come before it either (50 ms of clock slack).
    expect(detectedAt - killStartedAt).toBeGreaterThanOrEqual(LEASE_MS - idleAtKill - 50);
    recordFigures('sigkill-worker', {
      dialect,
      jobs: ids.length,
      mid_run_on_victim: startedByA.length,
      t_detect_ms: detectMs,
      t_recover_ms: recoveredAt - killedAt,
      jobs_lost: ids.length - [...rows.values()].filter((r) => r.state === 'succeeded').length,
      duplicates: terminal.reduce((n, c) => n + Math.max(0, c - 1), 0),
      idle_ms: LEASE_MS,
      renew_ms: 250,
      sweep_ms: 200,
      block_ms: 500,
    });
    await b.stop();
  },
);
