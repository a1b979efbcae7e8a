// Catches a guard that trusts a declaration it cannot classify: a call declared "verified"
// without evidence, or not declared at all, is refused BEFORE anything is sent — the provider
// sees no request — with a `refused` ledger row, an alert logged and counted, and the job parked
// in needs_review naming the unit and provider.
import { describeEachDialect } from '@sluice/storage/testing';
import { expect, it } from 'vitest';
import { usePaidHarness } from '../testing/paid-harness.js';

describeEachDialect('fail-closed calls are refused before sending', (ctx) => {
  const harness = usePaidHarness(ctx);

  it('refuses unverified and undeclared calls: no request, a refused row, an alert', async () => {
    const h = harness();
    const ids = await h.submit([{ call: 'unverified' }, { call: 'undeclared' }]);
    const worker = await h.worker();
    const rows = await h.settle(ids);
    expect(rows.map((r) => r.state)).toEqual(['needs_review', 'needs_review']);
    for (const id of ids) {
      expect(await h.billing(id)).toEqual([]);
      const ledger = await h.ledger(id);
      expect(ledger).toMatchObject([
        { unitKey: 'u0', outcome: 'refused', callClass: 'fail_closed' },
      ]);
    }
    expect(rows[0]?.reason).toMatch(/refused before sending \(fail-closed\).*without evidence/);
    expect(rows[1]?.reason).toMatch(/refused before sending \(fail-closed\).*undeclared/);
    const last = (await h.events(ctx().database.db, ids[0] as string)).at(-1);
    expect(last).toMatchObject({ type: 'needs_review', unitKey: 'u0', provider: 'fake' });
    expect(worker.metrics()).toMatchObject({ failClosedRefusals: 2, providerCalls: 0 });
    const alerts = h.logs.filter((l) => l.level === 'error' && l.message.startsWith('ALERT'));
    expect(alerts).toHaveLength(2);
  });
});
