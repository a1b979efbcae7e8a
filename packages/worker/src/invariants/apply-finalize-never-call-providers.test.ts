// Catches provider calls from code that runs again on every retry (prepare, apply, finalize) or
// outlives its unit (a call started in execute but not awaited by it): the guard refuses them
// before anything is sent, naming the stage. And replaying a job whose units are all
// checkpointed (finalize failed once) runs finalize again without a single provider call.
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { usePaidHarness } from '../testing/paid-harness.js';

describeEachDialect('apply and finalize never call providers', (ctx) => {
  const harness = usePaidHarness(ctx);

  it('refuses calls from prepare, apply and finalize, naming the stage; nothing is sent', async () => {
    const h = harness();
    const stages = ['prepare', 'apply', 'finalize'] as const;
    const ids = await h.submit(stages.map((stage) => ({ call: 'sync', stage })));
    await h.worker();
    const rows = await h.settle(ids);
    for (const [i, stage] of stages.entries()) {
      expect(rows[i], stage).toMatchObject({
        state: 'failed',
        attempts: 1,
        error: { kind: 'non_retriable', message: expect.stringContaining(`from ${stage} refused`) },
      });
      expect(await h.billing(ids[i] as string), stage).toEqual([]);
      expect(await h.ledger(ids[i] as string), stage).toEqual([]);
    }
  });

  it('refuses a call that outlives its unit', async () => {
    const h = harness();
    const [id] = (await h.submit([{ call: 'safe', stage: 'after-unit' }])) as [string];
    await h.worker();
    expect((await h.settle([id]))[0]?.state).toBe('succeeded');
    await new Promise((r) => setTimeout(r, 300));
    expect(h.lines.find((l) => l.startsWith('LATE'))).toMatch(/after unit "u0" finished refused/);
    expect(await h.billing(id)).toEqual([]);
  });

  it('replays finalize from checkpoints with zero provider calls', async () => {
    const h = harness();
    const calls = ['sync', 'async', 'safe'] as const;
    const ids = await h.submit(calls.map((call) => ({ call, units: 3, finalizeFailsOnce: true })));
    const worker = await h.worker();
    const rows = await h.settle(ids);
    for (const [i, call] of calls.entries()) {
      const id = ids[i] as string;
      expect(rows[i], call).toMatchObject({ state: 'succeeded', attempts: 2 });
      expect((await h.billing(id)).length, call).toBe(3);
      expect(h.lines.filter((l) => l.startsWith(`FINALIZE ${id}`))).toHaveLength(2);
    }
    // Attempt 2 of each job: 3 units from checkpoints, no request.
    expect(worker.metrics()).toMatchObject({ providerCalls: 9, checkpointsReused: 9 });
  });
});
