// Catches a blocking read that never settles (F6: bullmq PR #4484, ioredis #1285): the network
// goes half-open while XREADGROUP … BLOCK waits, so no reply and no error ever come, and a
// client that resends or reuses that connection stays stuck after the network heals. A worker
// process talks to Redis through a fault proxy that blackholes every byte; once healed, work
// dispatched meanwhile must start within BLOCK + 2 s (the watchdog tears the read down).

import { getJobsByIds } from '@sluice/storage';
import { faultProxy, sleep, spawnNode, waitFor, type FaultProxy } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useStreamsXpSuite, XP_DIALECT } from './testing/streams-xp-suite.js';
import { recordFigures, submitXpDispatchedJobs } from '@sluice/worker/conformance';

const entry = new URL('./testing/streams-worker-child.ts', import.meta.url);
const dialect = XP_DIALECT;
const BLOCK_MS = 1000;
const BLACKHOLE_MS = 4000;
const suite = useStreamsXpSuite();
let proxy: FaultProxy;

beforeAll(async () => {
  proxy = await faultProxy({ host: suite.fx.server.host, port: suite.fx.server.port });
});
// Closed before the suite's redis-server and database (vitest runs after-hooks in reverse).
afterAll(async () => {
  await proxy?.close();
});

it(
  `a blackholed blocking read recovers within BLOCK + 2 s once the network heals [${dialect}]`,
  { timeout: 90_000 },
  async () => {
    const { fx, db } = suite;
    const { database, url } = db;
    await using w = await spawnNode(entry, {
      env: {
        DB_URL: url,
        REDIS_URL: proxy.url('redis'),
        WORKER_ID: 'hole-w',
        LEASE_MS: '3000',
        UNIT_MS: '50',
        UNITS: '1',
        BLOCK_MS: String(BLOCK_MS),
        WATCHDOG_MARGIN_MS: '1000',
        COMMAND_TIMEOUT_MS: '1000',
      },
      readyLine: /READY (\S+)/,
    });
    const probes = (await w.waitForLine(/READY (\S+)/))[1] as string;
    const [warm] = (await submitXpDispatchedJobs(database, fx.dispatch, 1)) as [string];
    await w.waitForLine(new RegExp(`SETTLED ${warm}`), 20_000);
    await sleep(200); // the next blocking read is waiting now

    proxy.blackhole();
    await sleep(BLACKHOLE_MS - 500);
    // Dispatched straight to the server while the worker's network is dead.
    const [late] = (await submitXpDispatchedJobs(database, fx.dispatch, 1)) as [string];
    await sleep(500);
    proxy.heal();
    const healedAt = Date.now();
    await w.waitForLine(new RegExp(`STARTED ${late}`), 20_000);
    const resumeMs = Date.now() - healedAt;
    await waitFor(
      async () => (await getJobsByIds(database.db, [late])).get(late)?.state === 'succeeded',
      {
        message: 'late job succeeded',
      },
    );
    // The runtime's counters come with its stats, which need the (replaced) command connection.
    const trips = await waitFor(
      async () => {
        const metrics = await (await fetch(`${probes}/metrics`)).text();
        return Number(/^sluice_worker_runtime_watchdog_trips_total (\d+)/m.exec(metrics)?.[1] ?? 0);
      },
      { message: 'watchdog trips on /metrics' },
    );
    expect(trips).toBeGreaterThanOrEqual(1);
    expect(resumeMs).toBeLessThanOrEqual(BLOCK_MS + 2000);
    recordFigures('blackhole-blocking-read', {
      dialect,
      blackhole_ms: BLACKHOLE_MS,
      block_ms: BLOCK_MS,
      watchdog_margin_ms: 1000,
      blackhole_resume_ms: resumeMs,
      watchdog_trips: trips,
    });
    await w.stop();
  },
);
