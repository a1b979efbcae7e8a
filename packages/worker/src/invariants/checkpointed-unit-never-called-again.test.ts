// Catches a retry that re-runs (and re-pays for) work an earlier attempt finished: a unit whose
// checkpoint is stored is answered from it on every later attempt — its code does not run and
// its provider is not called — and a unit whose answer reached the ledger but not its
// checkpoint reuses the recorded answer. `unit_done` says `reused: true` for reused units.
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { billsByUnit, usePaidHarness } from '../testing/paid-harness.js';

describeEachDialect('a checkpointed unit is never called again', (ctx) => {
  const harness = usePaidHarness(ctx);

  it('a retried attempt reuses every stored unit, for every class', async () => {
    const h = harness();
    const calls = ['sync', 'async', 'safe'] as const;
    const ids = await h.submit(calls.map((call) => ({ call, units: 3, failOnce: 'u1' })));
    const worker = await h.worker();
    const rows = await h.settle(ids);
    for (const [i, call] of calls.entries()) {
      const id = ids[i] as string;
      expect(rows[i], call).toMatchObject({ state: 'succeeded', attempts: 2 });
      expect([...billsByUnit(await h.billing(id)).entries()].sort(), call).toEqual([
        ['u0', 1],
        ['u1', 1],
        ['u2', 1],
      ]);
      expect((await h.billing(id)).length, `${call}: requests`).toBe(3);
      // u0 and u2 were checkpointed in attempt 1: their code ran once. u1 threw after its call:
      // it ran again, and its provider answer came from the ledger.
      const ran = (unit: string) => h.lines.filter((l) => l.startsWith(`EXECUTE ${id} ${unit} `));
      expect([ran('u0').length, ran('u1').length, ran('u2').length], call).toEqual([1, 2, 1]);
      const unitDone = (await h.events(ctx().database.db, id)).filter(
        (e) => e.type === 'unit_done',
      );
      const second = unitDone.slice(-3).map((e) => [e.unitKey, e.reused ?? false]);
      expect(second.sort(), call).toEqual([
        ['u0', true],
        ['u1', false],
        ['u2', true],
      ]);
    }
    expect(worker.metrics()).toMatchObject({
      providerCalls: 9,
      providerAnswersReused: 3,
      checkpointsReused: 6,
    });
  });
});
