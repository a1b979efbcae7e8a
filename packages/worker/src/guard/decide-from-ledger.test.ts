// Catches a guard that repeats a call an earlier attempt may have paid for: a pending or
// ambiguous row blocks a sync call until a person authorises exactly one more, a recorded
// external id is polled instead of resubmitted, a stored answer is reused, and only rows that
// prove nothing was billed (never_sent, rejected, refused) let a call through freely.
import { CALL_OUTCOMES, type CallOutcome, type LedgerRow } from '@sluice/storage';
import { describe, expect, it } from 'vitest';
import { testHooks } from '../testing/seeded-bugs.js';
import { blockedCalls, leavesDoubt } from './decide-from-ledger.js';

// Under `npm run seeded-bugs` this is the seeded variant; otherwise the real decision.
const decideFromLedger = testHooks().decideFromLedger;

let n = 0;
function row(outcome: CallOutcome, extra: Partial<LedgerRow> = {}): LedgerRow {
  n++;
  return {
    id: `pc_${String(n).padStart(4, '0')}`,
    jobId: 'j1',
    tenantId: 'acme',
    unitKey: 'u0',
    callName: 'tts',
    attemptId: 'a1',
    epoch: 1,
    attempt: 1,
    stage: 'execute',
    provider: 'fake',
    modality: 'speech',
    callClass: 'ambiguous',
    requestKey: 'k',
    externalId: null,
    outcome,
    response: null,
    error: null,
    authorisedBy: null,
    note: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}
const answer = { status: 200, headers: {}, body: { ok: 1 } };

describe('decideFromLedger', () => {
  it('an empty ledger sends', () => {
    for (const cls of ['ambiguous', 'pollable', 'retry_safe'] as const) {
      expect(decideFromLedger([], cls)).toEqual({ kind: 'send', authorised: false });
    }
  });

  it('a stored answer is reused, whatever came before or after it', () => {
    const ok = row('succeeded', { response: answer });
    for (const cls of ['ambiguous', 'pollable', 'retry_safe'] as const) {
      const plan = decideFromLedger([row('timeout'), ok, row('pending')], cls);
      expect(plan).toMatchObject({ kind: 'reuse', answer, row: ok });
    }
  });

  it('rows that leave billing in doubt block an ambiguous or pollable repeat, not a retry-safe one', () => {
    for (const outcome of ['pending', 'server_error', 'timeout', 'connection_dropped'] as const) {
      const doubt = row(outcome);
      expect(decideFromLedger([doubt], 'ambiguous')).toEqual({ kind: 'review', row: doubt });
      expect(decideFromLedger([doubt], 'pollable')).toEqual({ kind: 'review', row: doubt });
      expect(decideFromLedger([doubt], 'retry_safe')).toEqual({ kind: 'send', authorised: false });
    }
    // Answered but the answer was too large to keep: billed, and nothing to reuse.
    const unkept = row('succeeded');
    expect(decideFromLedger([unkept], 'ambiguous')).toEqual({ kind: 'review', row: unkept });
  });

  it('rows that prove nothing is in doubt never block', () => {
    const clear = CALL_OUTCOMES.filter((o) => !leavesDoubt(row(o)) && o !== 'succeeded');
    expect(clear.sort()).toEqual(['authorised', 'never_sent', 'refused', 'rejected']);
    for (const o of ['never_sent', 'rejected', 'refused'] as const) {
      expect(decideFromLedger([row(o), row(o)], 'ambiguous')).toEqual({
        kind: 'send',
        authorised: false,
      });
    }
  });

  it('an authorisation allows exactly one more call', () => {
    const auth = row('authorised', { authorisedBy: 'key_1', note: 'checked the invoice' });
    const first = [row('pending'), auth];
    expect(decideFromLedger(first, 'ambiguous')).toEqual({ kind: 'send', authorised: true });
    // The authorised call was sent and left doubt again: blocked again.
    const again = row('connection_dropped');
    expect(decideFromLedger([...first, again], 'ambiguous')).toEqual({
      kind: 'review',
      row: again,
    });
    // A never-sent authorised call does not use the authorisation up in doubt.
    expect(decideFromLedger([...first, row('never_sent')], 'ambiguous')).toMatchObject({
      kind: 'send',
    });
  });

  it('a recorded external id is polled, never resubmitted', () => {
    const submitted = row('pending', { externalId: 'ext_1', callClass: 'pollable' });
    expect(decideFromLedger([submitted], 'pollable')).toEqual({
      kind: 'poll',
      externalId: 'ext_1',
      row: submitted,
    });
    const dropped = row('connection_dropped', { externalId: 'ext_2', callClass: 'pollable' });
    expect(decideFromLedger([row('pending'), dropped], 'pollable')).toMatchObject({
      kind: 'poll',
      externalId: 'ext_2',
    });
  });
});

describe('blockedCalls', () => {
  it('lists each (unit, call) whose last state needs a person, once', () => {
    const rows = [
      row('pending', { unitKey: 'u0' }),
      row('timeout', { unitKey: 'u0' }),
      row('succeeded', { unitKey: 'u1', response: answer }),
      row('pending', { unitKey: 'u2', callClass: 'retry_safe' }),
      row('pending', { unitKey: 'u3', callClass: 'pollable', externalId: 'e' }),
      row('pending', { unitKey: 'u4', callClass: 'pollable' }),
      row('pending', { unitKey: 'u5' }),
      row('authorised', { unitKey: 'u5', callClass: '-' }),
      row('refused', { unitKey: 'u6', callClass: 'fail_closed' }),
    ];
    expect(blockedCalls(rows).map((b) => [b.unitKey, b.callName, b.row.outcome])).toEqual([
      ['u0', 'tts', 'timeout'],
      ['u4', 'tts', 'pending'],
    ]);
  });
});
