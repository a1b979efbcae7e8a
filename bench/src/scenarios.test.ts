import { describe, expect, it } from 'vitest';
import { buildScenarios, DURABLE_ENGINES, FULL, QUICK, selectScenarios } from './scenarios.js';

describe('scenarios', () => {
  const all = buildScenarios(FULL);

  it('covers the eleven rows except 4, which is the ceiling column of rows 1–3 (9: fairness across tenants, 10: provider limits, 11: the durable engines)', () => {
    expect([...new Set(all.map((s) => s.row))]).toEqual([1, 2, 3, 5, 6, 7, 8, 9, 10, 11]);
    for (const s of all.filter((x) => x.row <= 3)) expect(s.ceiling).toBe('raw-streams');
  });

  it('compares rows 1–3 with BullMQ with and without AOF, and row 5 with graphile-worker', () => {
    for (const s of all.filter((x) => x.row <= 3))
      expect(s.anchors, s.id).toEqual(['bullmq', 'bullmq-aof']);
    for (const s of all.filter((x) => x.row === 5)) expect(s.anchors, s.id).toEqual(['graphile']);
  });

  it('runs NATS JetStream beside Streams in the c64 drain, the 10 ms row and the latency row', () => {
    const withNats = (size: typeof FULL) =>
      buildScenarios(size)
        .filter((s) => s.subjects.includes('sluice-nats'))
        .map((s) => [s.id, s.subjects]);
    const both = ['sluice-streams', 'sluice-nats'];
    const expected = [
      ['drain.c64.p1', both],
      ['io.c64', both],
      ['latency.c64', both],
    ];
    expect(withNats(FULL)).toEqual(expected);
    expect(withNats(QUICK)).toEqual(expected);
  });

  it('selects by prefix, exact id, row number and "ceiling"', () => {
    const ids = (only: string[]) => selectScenarios(all, only).map((s) => s.id);
    expect(ids(['drain'])).toEqual([
      'drain.c16.p1',
      'drain.c64.p1',
      'drain.c16.p4',
      'drain.c64.p4',
    ]);
    expect(ids(['drain.c64.p1', 'io'])).toEqual(['drain.c64.p1', 'io.c64']);
    expect(ids(['5'])).toEqual(['embedded.c16.p1', 'embedded.c64.p1', 'embedded.c16.p4']);
    expect(ids(['ceiling'])).toEqual(ids(['1', '2', '3']));
    expect(ids(['dra'])).toEqual([]);
  });

  it('pairs both gateway storages with one ceiling run per round in row 6', () => {
    const submit = all.filter((s) => s.row === 6);
    expect(submit.map((s) => [s.id, s.subjects, s.ceiling])).toEqual([
      ['submit.c50', ['sluice-gateway-sqlite', 'sluice-gateway-postgres'], 'trpc-noop'],
    ]);
    expect(all.find((s) => s.row === 7)?.id).toBe('upload.1g');
    expect(buildScenarios(QUICK).find((s) => s.row === 7)?.id).toBe('upload.256m');
  });

  it('puts Sluice beside every durable engine in row 11, BullMQ first, in the first 3 rounds', () => {
    const row = all.filter((s) => s.row === 11);
    expect(row.map((s) => s.id)).toEqual([
      'durable.drain.c64',
      'durable.latency.500',
      'durable.latency.1000',
    ]);
    for (const s of row) {
      expect(s.anchors, s.id).toEqual(['bullmq', ...DURABLE_ENGINES]);
      expect(s.rounds, s.id).toBe(3);
    }
    const drain = row[0]?.spec;
    expect(drain?.kind === 'drain' && [drain.jobs, drain.concurrency, drain.maxSeconds]).toEqual([
      FULL.drainJobs,
      64,
      FULL.drainCapSeconds,
    ]);
    expect(row[0]?.subjects).toEqual(['sluice-streams', 'sluice-embedded-pg']);
    expect(row.map((s) => s.spec.kind === 'latency' && s.spec.rate)).toEqual([false, 500, 1_000]);
    // --engines picks a subset; --no-durable (or quick mode) leaves the row out.
    const two = buildScenarios({ ...FULL, durableEngines: ['pgboss', 'restate'] });
    expect(two.find((s) => s.row === 11)?.anchors).toEqual(['bullmq', 'pgboss', 'restate']);
    expect(buildScenarios({ ...FULL, durable: false }).some((s) => s.row === 11)).toBe(false);
    expect(buildScenarios(QUICK).some((s) => s.row === 11)).toBe(false);
    expect(selectScenarios(all, ['durable']).map((s) => s.id)).toEqual(row.map((s) => s.id));
    expect(selectScenarios(all, ['11'])).toHaveLength(3);
  });

  it('keeps quick mode smaller than full', () => {
    const quick = buildScenarios(QUICK).filter((s) => s.row <= 5);
    expect(quick.length).toBeLessThan(all.filter((s) => s.row <= 5).length);
    expect(QUICK.rounds).toBeGreaterThanOrEqual(3);
    expect(FULL.rounds).toBeGreaterThanOrEqual(5);
  });

  it('runs one scenario per row in quick mode (row 9: one per runtime that is fair)', () => {
    const rows = buildScenarios(QUICK).map((s) => s.row);
    expect(rows).toEqual([1, 2, 3, 5, 6, 7, 8, 9, 9, 10]);
    expect(
      buildScenarios(QUICK)
        .filter((s) => s.row === 9)
        .map((s) => s.id),
    ).toEqual(['fairness.embedded', 'fairness.streams']);
  });

  it('runs row 10 on both embedded storages with the limits docs/performance.md quotes', () => {
    for (const size of [FULL, QUICK]) {
      const row = buildScenarios(size).filter((s) => s.row === 10);
      expect(row.map((s) => [s.id, s.subjects])).toEqual([
        ['limits.provider', ['sluice-embedded-sqlite', 'sluice-embedded-pg']],
      ]);
      const spec = row[0]?.spec;
      expect(spec?.kind === 'limits' && [spec.maxConcurrent, spec.callsPerSecond]).toEqual([4, 20]);
      expect(spec?.kind === 'limits' && spec.processes).toBe(3);
    }
    expect(QUICK.limitsJobs).toBeLessThan(FULL.limitsJobs);
  });

  it('caps the clock of every drain, so a slow subject cannot blow the time budget', () => {
    for (const size of [FULL, QUICK]) {
      for (const s of buildScenarios(size)) {
        if (s.spec.kind === 'drain') expect(s.spec.maxSeconds, s.id).toBeGreaterThan(0);
        if (s.spec.kind === 'latency') expect(s.spec.drainCapSeconds, s.id).toBeGreaterThan(0);
      }
    }
    expect(QUICK.drainCapSeconds).toBeLessThan(FULL.drainCapSeconds);
  });
});
