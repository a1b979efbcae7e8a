// Catches a swallowed error (F10): one failing unit among many must fail the stage with every
// cause attached, never let the job succeed, and the most severe cause decides — a unit that may
// have been billed (review) is never retried because a sibling only flaked.
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { usePaidHarness } from '../testing/paid-harness.js';

describeEachDialect('no swallowed error', (ctx) => {
  const harness = usePaidHarness(ctx);

  it('one rejected unit fails the job with its cause; the others do not hide it', async () => {
    const h = harness();
    const [id] = (await h.submit([{ call: 'sync', units: 4 }])) as [string];
    await h.provider.setFaults([{ jobId: id, unitKey: 'u2', fault: 'http-4xx' }]);
    await h.worker();
    const [row] = await h.settle([id]);
    expect(row).toMatchObject({ state: 'failed', attempts: 1 });
    expect(row?.error).toMatchObject({
      kind: 'units_failed',
      causes: [
        {
          unitKey: 'u2',
          error: { kind: 'non_retriable', message: expect.stringContaining('rejected') },
        },
      ],
    });
    // The other units ran and their calls were recorded: nothing was cut short silently.
    const outcomes = (await h.ledger(id)).map((r) => `${r.unitKey}:${r.outcome}`).sort();
    expect(outcomes).toEqual(['u0:succeeded', 'u1:succeeded', 'u2:rejected', 'u3:succeeded']);
  });

  it('review outranks a retriable sibling: the job parks, keeping both causes', async () => {
    const h = harness();
    const [id] = (await h.submit([{ call: 'sync', units: 2, failOnce: 'u1' }])) as [string];
    await h.provider.setFaults([{ jobId: id, unitKey: 'u0', fault: 'commit-then-drop' }]);
    await h.worker();
    const [row] = await h.settle([id]);
    expect(row).toMatchObject({ state: 'needs_review', attempts: 1 });
    expect(row?.error).toMatchObject({ kind: 'units_failed' });
    const causes = row?.error?.kind === 'units_failed' ? row.error.causes : [];
    expect(causes.map((c) => [c.unitKey, c.error.kind]).sort()).toEqual([
      ['u0', 'needs_review'],
      ['u1', 'error'],
    ]);
    const review = (await h.events(ctx().database.db, id)).at(-1);
    expect(review).toMatchObject({ type: 'needs_review', unitKey: 'u0', provider: 'fake' });
  });
});
