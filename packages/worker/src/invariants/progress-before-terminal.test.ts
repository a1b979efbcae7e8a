// Catches progress flushed after (or lost behind) the terminal event: every progress and
// unit_done event an attempt queued is stored, in order, before the job's terminal event, and
// nothing of the attempt follows it.
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { usePaidHarness } from '../testing/paid-harness.js';

describeEachDialect('progress before the terminal event', (ctx) => {
  const harness = usePaidHarness(ctx);

  it('stores every progress event, in order, before the terminal transition', async () => {
    const h = harness();
    const ids = await h.submit([
      { call: 'safe', units: 4, progress: 60 },
      { call: 'sync', units: 3, progress: 40, stage: 'finalize' },
    ]);
    await h.worker({ unitConcurrency: 1 });
    const rows = await h.settle(ids);
    expect(rows.map((r) => r.state)).toEqual(['succeeded', 'failed']);
    for (const [i, units] of [4, 3].entries()) {
      const events = await h.events(ctx().database.db, ids[i] as string);
      const terminal = events.findIndex(
        (e) => 'to' in e && (e.to === 'succeeded' || e.to === 'failed'),
      );
      expect(terminal).toBe(events.length - 1);
      const progress = events.filter((e) => e.type === 'progress');
      expect(progress).toHaveLength(units * (i === 0 ? 60 : 40));
      // Units ran one after the other: their progress values come back in the order reported.
      const values = progress.map((e) => (e.data as { n: number }).n);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(events.filter((e) => e.type === 'unit_done')).toHaveLength(units);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k + 1));
    }
  });
});
