// Catches double billing: a retry (in place or by a new attempt) that pays a provider again for
// a unit it may already have paid for. The proof is the provider's own fsync'd ledger, in its
// own process: for every unit, billed calls ≤ 1 + the calls a person authorised (counted apart).
// Covers every fault the provider can inject, for a sync (ambiguous), an async-job (pollable)
// and a verified-key (retry-safe) declaration.
import { authoriseCall, enqueue, transitionJob } from '@sluice/storage';
import { describeEachDialect } from '@sluice/storage/testing';
import type { FaultRule } from '@sluice/testkit';
import { expect, it } from 'vitest';
import { billsByUnit, usePaidHarness, type PaidHarness } from '../testing/paid-harness.js';

async function assertBilledOnce(h: PaidHarness, jobId: string): Promise<Map<string, number>> {
  const bills = billsByUnit(await h.billing(jobId));
  const ledger = await h.ledger(jobId);
  for (const [unit, n] of bills) {
    const authorised = ledger.filter((r) => r.unitKey === unit && r.outcome === 'authorised');
    expect(n, `${jobId} ${unit} billed`).toBeLessThanOrEqual(1 + authorised.length);
  }
  return bills;
}

describeEachDialect('a unit is billed once', (ctx) => {
  const harness = usePaidHarness(ctx);

  it('clean runs bill every unit exactly once, for every class', async () => {
    const h = harness();
    const ids = await h.submit([
      { call: 'sync', units: 3 },
      { call: 'async', units: 3 },
      { call: 'safe', units: 3 },
    ]);
    const worker = await h.worker();
    const rows = await h.settle(ids);
    expect(rows.map((r) => r.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    for (const id of ids) {
      expect([...(await assertBilledOnce(h, id)).values()]).toEqual([1, 1, 1]);
    }
    const external = (await h.billing(ids[1] as string)).map((r) => r.externalJobId);
    expect(new Set(external).size).toBe(3);
    expect(worker.metrics()).toMatchObject({ providerCalls: 9, failClosedRefusals: 0 });
  });

  it('under every fault: retried only where safe, parked where in doubt, never paid twice', async () => {
    const h = harness();
    const cases = [
      { input: { call: 'safe' as const }, fault: 'http-5xx', times: 2, state: 'succeeded' },
      { input: { call: 'safe' as const }, fault: 'commit-then-drop', times: 1, state: 'succeeded' },
      { input: { call: 'safe' as const }, fault: 'error-before-processing', state: 'succeeded' },
      { input: { call: 'sync' as const }, fault: 'error-before-processing', state: 'needs_review' },
      { input: { call: 'sync' as const }, fault: 'commit-then-drop', state: 'needs_review' },
      { input: { call: 'sync' as const }, fault: 'http-5xx', state: 'needs_review' },
      { input: { call: 'sync' as const }, fault: 'http-4xx', state: 'failed' },
      { input: { call: 'async' as const }, fault: 'commit-then-drop', state: 'needs_review' },
      { input: { call: 'async' as const }, fault: 'async-fail', state: 'failed' },
      { input: { call: 'async' as const }, fault: 'http-5xx', poll: true, state: 'succeeded' },
    ] as const;
    const ids = await h.submit(cases.map((c) => c.input));
    const rules: FaultRule[] = cases.map((c, i) => ({
      jobId: ids[i] as string,
      fault: c.fault,
      times: 'times' in c ? c.times : 1,
      ...('poll' in c ? { endpoint: 'async-poll' as const, times: 2 } : {}),
    }));
    await h.provider.setFaults(rules);
    await h.worker();
    const rows = await h.settle(ids);
    const figures: string[] = [];
    for (const [i, c] of cases.entries()) {
      const id = ids[i] as string;
      expect(rows[i]?.state, `${c.input.call} ${c.fault}`).toBe(c.state);
      const bills = await assertBilledOnce(h, id);
      const requests = (await h.billing(id)).length;
      figures.push(
        `${c.input.call}/${c.fault}: ${c.state}, billed ${bills.get('u0') ?? 0}, requests ${requests}`,
      );
    }
    // A sync call is never sent twice, whatever happened to the first one.
    for (const [i, c] of cases.entries()) {
      if (c.input.call === 'sync') expect((await h.billing(ids[i] as string)).length).toBe(1);
    }
    console.log(`[${ctx().dialect}] ${figures.join('; ')}`);
  });

  it('an approval authorises exactly one more call, counted apart', async () => {
    const h = harness();
    const [id] = (await h.submit([{ call: 'sync' }])) as [string];
    await h.provider.setFaults([{ jobId: id, fault: 'commit-then-drop' }]);
    await h.worker();
    expect((await h.settle([id]))[0]?.state).toBe('needs_review');
    const { database } = ctx();
    await database.transaction(async (tx) => {
      await authoriseCall(tx, {
        jobId: id,
        tenantId: 'acme',
        unitKey: 'u0',
        callName: 'sync',
        by: 'key_test',
        note: 'the first call was dropped; invoice checked',
      });
      await transitionJob(tx, { id, event: 'approve', resetAttempts: true });
      await enqueue(tx, [{ jobId: id, kind: 'xp.paid', version: 'v1', tenantId: 'acme' }]);
    });
    expect((await h.settle([id]))[0]?.state).toBe('succeeded');
    expect(billsByUnit(await h.billing(id)).get('u0')).toBe(2);
    const ledger = await h.ledger(id);
    expect(ledger.map((r) => r.outcome)).toEqual(['connection_dropped', 'authorised', 'succeeded']);
    expect(ledger[1]).toMatchObject({
      authorisedBy: 'key_test',
      note: expect.stringContaining('invoice'),
    });
    await assertBilledOnce(h, id);
  });
});
