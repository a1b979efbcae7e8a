// Catches a paused Streams worker taking its entry back or landing late writes after another
// worker claimed its job: an unconditional XCLAIM renewal, an ack of the new owner's entry, a
// second terminal event, progress from the old attempt. A real worker process is SIGSTOPped past
// the idle time, another process claims and runs the job, then the first is SIGCONTed mid-run.

import { parseXPendingRange } from './replies.js';
import { getJobsByIds, listEvents } from '@sluice/storage';
import { sleep, spawnNode, waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { useStreamsXpSuite, XP_DIALECT } from './testing/streams-xp-suite.js';
import { recordFigures, submitXpDispatchedJobs } from '@sluice/worker/conformance';

const entry = new URL('./testing/streams-worker-child.ts', import.meta.url);
const dialect = XP_DIALECT;
const UNITS = 6;
const suite = useStreamsXpSuite();

it(
  `a paused worker resumed after its entry was claimed neither takes it back nor writes [${dialect}]`,
  { timeout: 120_000 },
  async () => {
    const { fx, db } = suite;
    const { database, url } = db;
    const stream = fx.keys.jobs('xp.work', 'v1');
    const env = {
      DB_URL: url,
      REDIS_URL: fx.server.url,
      LEASE_MS: '1000',
      RENEW_MS: '200',
      UNIT_MS: '300',
      UNITS: String(UNITS),
    };
    await using a = await spawnNode(entry, {
      env: { ...env, WORKER_ID: 'zombie-a' },
      readyLine: /READY (\S+)/,
    });
    const aProbes = (await a.waitForLine(/READY (\S+)/))[1] as string;
    const [jobId] = (await submitXpDispatchedJobs(database, fx.dispatch, 1)) as [string];
    await a.waitForLine(/UNIT \S+ u0/, 20_000);
    await sleep(60); // between writes: the unit takes 300 ms, its events went right after u0
    a.signal('SIGSTOP');
    const stoppedAt = Date.now();

    await using b = await spawnNode(entry, {
      env: { ...env, WORKER_ID: 'zombie-b' },
      readyLine: /READY/,
    });
    const owners = async () =>
      parseXPendingRange(await fx.redis.xpending(stream, fx.keys.group, '-', '+', 10)).map(
        (p) => p.consumer,
      );
    await waitFor(
      async () => (await getJobsByIds(database.db, [jobId])).get(jobId)?.attempts === 2,
      {
        timeoutMs: 20_000,
        intervalMs: 20,
        message: 'reclaimed by b',
      },
    );
    const reclaimedAfter = Date.now() - stoppedAt;
    // b's (or already acked by b: on a loaded machine the poll above can come late): one entry at
    // most, never the zombie's.
    expect(['zombie-b', '']).toContain((await owners()).join(','));
    await b.waitForLine(/UNIT \S+ u1/, 10_000);
    // Wake the zombie while b is mid-run: its overdue unit and renewal fire at once. From now on
    // the entry must never be the zombie's again.
    a.signal('SIGCONT');
    const seen = new Set<string>();
    await waitFor(
      async () => {
        for (const o of await owners()) seen.add(o);
        return (await getJobsByIds(database.db, [jobId])).get(jobId)?.state === 'succeeded';
      },
      { timeoutMs: 20_000, intervalMs: 10, message: 'b finished' },
    );
    await sleep(800); // time for any late write or ack from a to land (none may)
    expect(seen.has('zombie-a')).toBe(false);

    const row = (await getJobsByIds(database.db, [jobId])).get(jobId);
    expect(row?.output).toEqual({ n: 0, by: 'zombie-b' });
    const events = await listEvents(database.db, jobId);
    expect(events.filter((e) => 'to' in e && e.to === 'succeeded')).toHaveLength(1);
    const reclaim = events.find(
      (e) => e.type === 'state' && e.from === 'running' && e.to === 'running',
    );
    expect(reclaim).toMatchObject({ attempt: 2 });
    const after = events.filter((e) => e.seq > (reclaim?.seq ?? Infinity));
    const progressBy = after.flatMap((e) =>
      e.type === 'progress' ? [(e.data as { by: string }).by] : [],
    );
    // Units a's first unit checkpointed are reused by b (no new progress for them).
    expect(new Set(progressBy)).toEqual(new Set(['zombie-b']));
    expect(progressBy.length).toBeGreaterThanOrEqual(UNITS - 1);
    const unitsAfter = after.flatMap((e) => (e.type === 'unit_done' ? [e.unitKey] : []));
    expect(unitsAfter.sort()).toEqual(Array.from({ length: UNITS }, (_, i) => `u${i}`));
    const zombieWrites = events.filter(
      (e) =>
        e.seq > (reclaim?.seq ?? Infinity) &&
        e.type === 'progress' &&
        (e.data as { by: string }).by === 'zombie-a',
    ).length;
    // The zombie learned it lost: its renewal found the entry owned by b and aborted the attempt.
    const metrics = await (await fetch(`${aProbes}/metrics`)).text();
    expect(metrics).toMatch(/^sluice_worker_lost_leases_total [1-9]/m);
    expect(metrics).toMatch(/^sluice_worker_succeeded_total 0$/m);
    // Lost through the owner-checked renewal (or, if b had already finished, the database check).
    const renewalsLost = await waitFor(async () => {
      const text = await (await fetch(`${aProbes}/metrics`)).text();
      return /^sluice_worker_runtime_renewals_lost_total (\d+)/m.exec(text)?.[1];
    });
    await waitFor(async () => (await fx.outstanding([stream])) === 0, {
      message: 'nothing pending',
    });
    recordFigures('sigstop-zombie', {
      dialect,
      t_reclaim_after_pause_ms: reclaimedAfter,
      zombie_writes_landed: zombieWrites,
      zombie_took_entry_back: seen.has('zombie-a'),
      zombie_renewals_lost: Number(renewalsLost),
      duplicates: events.filter((e) => 'to' in e && e.to === 'succeeded').length - 1,
      idle_ms: 1000,
    });
    await b.stop();
    await a.stop();
  },
);
