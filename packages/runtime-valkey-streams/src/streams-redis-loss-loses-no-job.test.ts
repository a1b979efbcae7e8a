// Catches what a Redis restart without persistence does to consumers: a NOGROUP hot loop (F5),
// reads that never resume, readiness that never goes unready (or never comes back), and jobs
// lost with the streams and their pending lists. Two worker processes run jobs; the server is
// killed and started again empty; what was lost is dispatched again from the database (in
// production the gateway's reconciler does it, on its data-loss marker). Every job must end
// exactly once, both workers must go unready and ready again, and NOGROUP must be logged ≤ 1/s.

import { getJobsByIds } from '@sluice/storage';
import { pingRedis, sleep, spawnNode, waitFor, type ChildHandle } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { useStreamsXpSuite, XP_DIALECT } from './testing/streams-xp-suite.js';
import {
  recordFigures,
  redispatchUnfinished,
  submitXpDispatchedJobs,
  terminalEventCounts,
} from '@sluice/worker/conformance';

const entry = new URL('./testing/streams-worker-child.ts', import.meta.url);
const dialect = XP_DIALECT;
const DOWN_MS = 2000;
const suite = useStreamsXpSuite({ persistence: 'none' });

/** Polls /readyz until stopped; remembers when it was last unready and when ready again. */
function watchReadiness(url: string) {
  const seen = { unreadyAt: 0, readyAgainAt: 0, stop: false };
  void (async () => {
    while (!seen.stop) {
      const ready = await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!ready && !seen.unreadyAt) seen.unreadyAt = Date.now();
      if (ready && seen.unreadyAt && !seen.readyAgainAt) seen.readyAgainAt = Date.now();
      await sleep(25);
    }
  })();
  return seen;
}

const nogroupLines = (c: ChildHandle) =>
  c
    .output()
    .split('\n')
    .filter((l) => l.includes('NOGROUP')).length;

it(
  `a Redis restart without persistence loses no job; consumers recreate their groups [${dialect}]`,
  { timeout: 120_000 },
  async () => {
    const { fx, db } = suite;
    const { database, url } = db;
    const env = {
      DB_URL: url,
      REDIS_URL: fx.server.url,
      LEASE_MS: '1500',
      RENEW_MS: '300',
      UNIT_MS: '250',
      UNITS: '4',
      CONCURRENCY: '4',
      UNREADY_AFTER: '3',
    };
    const workers = await Promise.all(
      ['loss-a', 'loss-b'].map((id) =>
        spawnNode(entry, { env: { ...env, WORKER_ID: id }, readyLine: /READY (\S+)/ }),
      ),
    );
    try {
      const probes = await Promise.all(
        workers.map(async (w) => (await w.waitForLine(/READY (\S+)/))[1] as string),
      );
      const ids = await submitXpDispatchedJobs(database, fx.dispatch, 24);
      await waitFor(
        () => workers.reduce((n, w) => n + (w.output().match(/SETTLED/g)?.length ?? 0), 0) >= 4,
        {
          timeoutMs: 30_000,
          message: 'some jobs finished',
        },
      );
      const watches = probes.map(watchReadiness);
      const settledBefore = workers.reduce(
        (n, w) => n + (w.output().match(/SETTLED/g)?.length ?? 0),
        0,
      );
      const nogroupBefore = workers.map(nogroupLines);
      await fx.server.kill();
      const killedAt = Date.now();
      await sleep(DOWN_MS);
      await fx.server.restart({ persistence: 'none' });
      const backAt = Date.now();
      await waitFor(() => pingRedis(fx.server.port), { message: 'redis back' });
      // No gateway runs here: the test re-dispatches, as the gateway's reconciler does on its
      // data-loss marker.
      const redispatched = await redispatchUnfinished(database, fx.dispatch);
      await waitFor(
        async () =>
          [...(await getJobsByIds(database.db, ids)).values()].every(
            (r) => r.state === 'succeeded',
          ),
        { timeoutMs: 60_000, message: 'every job succeeded' },
      );
      await waitFor(() => watches.every((w) => w.readyAgainAt > 0), {
        timeoutMs: 20_000,
        message: 'ready again',
      });
      for (const w of watches) w.stop = true;
      const terminal = await terminalEventCounts(database, ids);
      expect(terminal).toEqual(ids.map(() => 1));
      for (const w of watches) {
        expect(w.unreadyAt).toBeGreaterThanOrEqual(killedAt);
        expect(w.readyAgainAt).toBeGreaterThan(backAt);
      }
      const metrics = await Promise.all(
        probes.map(async (p) => (await fetch(`${p}/metrics`)).text()),
      );
      const recreations = metrics.map((m) =>
        Number(/^sluice_worker_runtime_group_recreations_total (\d+)/m.exec(m)?.[1] ?? 0),
      );
      // One group per stream, shared: whichever worker meets NOGROUP first makes it again.
      expect(recreations.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
      const windowS = (Date.now() - killedAt) / 1000;
      const nogroupLogged = workers.map((w, i) => nogroupLines(w) - (nogroupBefore[i] ?? 0));
      // Bounded logging: at most about one NOGROUP line a second per worker (F5's hot loop is 600/s).
      for (const n of nogroupLogged) expect(n).toBeLessThanOrEqual(Math.ceil(windowS) * 2);
      const stream = fx.keys.jobs('xp.work', 'v1');
      await waitFor(async () => (await fx.outstanding([stream])) === 0, {
        message: 'nothing pending',
      });
      recordFigures('redis-restart-no-persistence', {
        dialect,
        jobs: ids.length,
        settled_before_kill: settledBefore,
        redis_down_ms: backAt - killedAt,
        redispatched,
        t_ready_again_ms: Math.max(...watches.map((w) => w.readyAgainAt)) - backAt,
        unready_after_kill_ms: Math.max(...watches.map((w) => w.unreadyAt)) - killedAt,
        group_recreations: recreations,
        nogroup_log_lines: nogroupLogged,
        window_s: Math.round(windowS),
        jobs_lost: ids.length - terminal.filter((c) => c >= 1).length,
        duplicates: terminal.reduce((n, c) => n + Math.max(0, c - 1), 0),
      });
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  },
);
