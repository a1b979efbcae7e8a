// Catches a ledger decision that reuses, polls or authorises from the wrong row: only a
// `succeeded` row holding a real answer (a plain object with status, headers and body) is
// reused; only a pollable call polls, and only a recorded, not-rejected external id; one
// authorisation covers exactly the next call; the review listing reads the call's class from
// its own rows, not from the authorisation's.
import type { CallOutcome, LedgerRow } from '@sluice/storage';
import { describe, expect, it } from 'vitest';
import { blockedCalls, decideFromLedger, isAnswer, leavesDoubt } from './decide-from-ledger.js';

let n = 0;
function row(outcome: CallOutcome, extra: Partial<LedgerRow> = {}): LedgerRow {
  n++;
  return {
    id: `pc_e${String(n).padStart(4, '0')}`,
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

describe('decideFromLedger edges', () => {
  it('an answer is a plain object with a numeric status, headers and a body', () => {
    expect(isAnswer(answer)).toBe(true);
    expect(isAnswer({ status: 200, headers: {}, body: null })).toBe(true);
    for (const not of [
      null,
      'ok',
      200,
      { status: '200', headers: {}, body: 1 },
      { status: 200, body: 1 },
      { status: 200, headers: 'x', body: 1 },
      { status: 200, headers: {} },
      Object.assign(() => {}, answer), // the right fields on a function: not JSON, not an answer
    ]) {
      expect(isAnswer(not), JSON.stringify(not) ?? String(not)).toBe(false);
    }
    // A success whose answer was not kept leaves billing in doubt.
    expect(leavesDoubt(row('succeeded', { response: { status: 200, body: 1 } }))).toBe(true);
    expect(leavesDoubt(row('succeeded', { response: answer }))).toBe(false);
  });

  it('reuses only a succeeded row, never an answer kept on a failed one', () => {
    const odd = row('rejected', { response: answer });
    expect(decideFromLedger([odd], 'retry_safe')).toEqual({ kind: 'send', authorised: false });
    expect(decideFromLedger([odd], 'ambiguous')).toEqual({ kind: 'send', authorised: false });
  });

  it('polls only pollable calls, from the last recorded id that was not rejected', () => {
    const withId = row('pending', { externalId: 'ext-1', callClass: 'pollable' });
    expect(decideFromLedger([withId], 'ambiguous')).toEqual({ kind: 'review', row: withId });
    expect(decideFromLedger([withId], 'retry_safe')).toEqual({ kind: 'send', authorised: false });
    const noId = row('pending', { callClass: 'pollable' });
    expect(decideFromLedger([withId, noId], 'pollable')).toEqual({
      kind: 'poll',
      externalId: 'ext-1',
      row: withId,
    });
    const later = row('timeout', { externalId: 'ext-2', callClass: 'pollable' });
    expect(decideFromLedger([withId, later], 'pollable')).toMatchObject({ externalId: 'ext-2' });
    const rejected = row('rejected', { externalId: 'ext-3', callClass: 'pollable' });
    expect(decideFromLedger([withId, rejected], 'pollable')).toMatchObject({
      externalId: 'ext-1',
    });
    expect(decideFromLedger([rejected], 'pollable')).toEqual({ kind: 'send', authorised: false });
    expect(decideFromLedger([noId], 'pollable')).toEqual({ kind: 'review', row: noId });
  });

  it('one authorisation covers exactly the next call', () => {
    const auth = row('authorised');
    expect(decideFromLedger([auth], 'ambiguous')).toEqual({ kind: 'send', authorised: true });
    // Spent by a call that never left: the next one is not authorised any more.
    const spent = row('never_sent');
    expect(decideFromLedger([auth, spent], 'ambiguous')).toEqual({
      kind: 'send',
      authorised: false,
    });
    const doubt = row('timeout');
    const again = row('authorised');
    expect(decideFromLedger([doubt, again], 'ambiguous')).toEqual({
      kind: 'send',
      authorised: true,
    });
    expect(decideFromLedger([doubt, again, row('pending')], 'ambiguous')).toMatchObject({
      kind: 'review',
    });
  });

  it('lists blocked calls by the class of their own rows', () => {
    expect(blockedCalls([row('authorised')])).toEqual([]);
    const auth = row('authorised', { callClass: 'retry_safe' });
    const pending = row('pending', { callClass: 'ambiguous' });
    expect(blockedCalls([auth, row('never_sent'), pending])).toEqual([
      { unitKey: 'u0', callName: 'tts', row: pending },
    ]);
    const safe = row('timeout', { callClass: 'retry_safe', callName: 'safe' });
    expect(blockedCalls([safe])).toEqual([]);
  });
});
