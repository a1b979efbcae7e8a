// Catches a zombie worker's late writes landing after its job was taken over: a duplicate
// terminal event, a second output, or progress from the old attempt after the reclaim. A real
// worker process is SIGSTOPped past its lease, another process reclaims and runs the job, then
// the first one is SIGCONTed mid-run: every write it then tries is fenced by the epoch.
import { getJobsByIds, listEvents } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import { sleep, spawnNode, waitFor } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { submitXpJobs } from '../testing/submit-xp-jobs.js';

const entry = new URL('../testing/worker-child.ts', import.meta.url);
const UNITS = 6;

describeEachDialect('a paused worker resumed after its lease was taken', (ctx) => {
  it('has its late writes rejected by the epoch fence', { timeout: 90_000 }, async () => {
    const { database, url } = ctx();
    const env = {
      DB_URL: url,
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
    const [id] = await submitXpJobs(database, 1);
    const jobId = id as string;
    await a.waitForLine(/UNIT \S+ u0/, 20_000);
    // Pause between writes (the unit takes 300 ms; its events were flushed right after u0).
    await sleep(60);
    a.signal('SIGSTOP');
    const stoppedAt = Date.now();

    await using b = await spawnNode(entry, {
      env: { ...env, WORKER_ID: 'zombie-b' },
      readyLine: /READY/,
    });
    await waitFor(
      async () => (await getJobsByIds(database.db, [jobId])).get(jobId)?.attempts === 2,
      {
        timeoutMs: 20_000,
        intervalMs: 20,
        message: 'reclaimed by b',
      },
    );
    const reclaimedAfter = Date.now() - stoppedAt;
    await b.waitForLine(/UNIT \S+ u1/, 10_000);
    // Wake the zombie while b is mid-run: its overdue unit and renewal fire at once.
    a.signal('SIGCONT');
    await waitFor(
      async () => (await getJobsByIds(database.db, [jobId])).get(jobId)?.state === 'succeeded',
      {
        timeoutMs: 20_000,
        message: 'b finished',
      },
    );
    await sleep(800); // time for any late write from a to land (it must not)

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
    // u0 finished under a before the pause: when its checkpoint was stored by then, b reuses it
    // instead of running it again (no progress from b for it), else b runs it.
    const reusedAfter = after.flatMap((e) =>
      e.type === 'unit_done' && e.reused ? [e.unitKey] : [],
    );
    expect(reusedAfter.filter((k) => k !== 'u0')).toEqual([]);
    expect(progressBy).toEqual(
      Array.from({ length: UNITS - reusedAfter.length }, () => 'zombie-b'),
    );
    const unitsAfter = after.flatMap((e) => (e.type === 'unit_done' ? [e.unitKey] : []));
    expect(unitsAfter.sort()).toEqual(Array.from({ length: UNITS }, (_, i) => `u${i}`));
    // Before the reclaim only a's first unit landed.
    const before = events.filter((e) => e.seq < (reclaim?.seq ?? 0) && e.type === 'progress');
    expect(before.map((e) => (e.type === 'progress' ? (e.data as { by: string }).by : ''))).toEqual(
      ['zombie-a'],
    );
    // The zombie knows it lost: it aborted the attempt instead of finishing it.
    const metrics = await (await fetch(`${aProbes}/metrics`)).text();
    expect(metrics).toMatch(/^sluice_worker_lost_leases_total [1-9]/m);
    expect(metrics).toMatch(/^sluice_worker_succeeded_total 0$/m);
    expect(
      await database.db
        .selectFrom('jobs')
        .select('id')
        .where('state', 'in', ['queued', 'running'])
        .execute(),
    ).toEqual([]);
    console.log(
      `[${database.dialect.name}] SIGSTOP: reclaimed ${reclaimedAfter} ms after the pause (lease 1000 ms); zombie writes after the reclaim: 0 (includes b start-up)`,
    );
    await b.stop();
    await a.stop();
  });
});
