// What a call may do given the unit's ledger for it (every earlier attempt's rows, in order).
// Pure and exhaustive. The rules, in order:
//   1. A stored answer wins: reuse it (a crash between the answer and the checkpoint never pays
//      twice).
//   2. A pollable call with a recorded external id is polled, never submitted again.
//   3. Rows since the last human authorisation that leave billing in doubt (pending: crashed
//      around sending; 5xx, timeout, dropped; answered but the answer not kept) block a repeat:
//      ambiguous and pollable calls go to review, retry-safe calls resend with the same key.
//   `never_sent`, `rejected` and `refused` rows never block: nothing was billed, or nothing
//   in doubt.

import type { CallClass } from '@sluice/contracts';
import type { CallOutcome, LedgerRow } from '@sluice/storage';
import type { ProviderAnswer } from './types.js';

export type LedgerPlan =
  | { kind: 'reuse'; answer: ProviderAnswer; row: LedgerRow }
  | { kind: 'poll'; externalId: string; row: LedgerRow }
  | { kind: 'review'; row: LedgerRow }
  /** `authorised`: the send uses a person's approval (one call, recorded in the ledger). */
  | { kind: 'send'; authorised: boolean };

const IN_DOUBT: readonly CallOutcome[] = [
  'pending',
  'server_error',
  'timeout',
  'connection_dropped',
];

export function isAnswer(value: unknown): value is ProviderAnswer {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<ProviderAnswer>;
  return typeof v.status === 'number' && typeof v.headers === 'object' && 'body' in v;
}

/** True when the row leaves it open whether the provider billed. */
export function leavesDoubt(row: LedgerRow): boolean {
  if (IN_DOUBT.includes(row.outcome)) return true;
  return row.outcome === 'succeeded' && !isAnswer(row.response);
}

export function decideFromLedger(
  rows: readonly LedgerRow[],
  callClass: Exclude<CallClass, 'fail_closed'>,
): LedgerPlan {
  const answered = rows.find((r) => r.outcome === 'succeeded' && isAnswer(r.response));
  if (answered)
    return { kind: 'reuse', answer: answered.response as ProviderAnswer, row: answered };

  if (callClass === 'pollable') {
    const submitted = rows.findLast((r) => r.externalId !== null && r.outcome !== 'rejected');
    if (submitted?.externalId) {
      return { kind: 'poll', externalId: submitted.externalId, row: submitted };
    }
  }

  const lastAuth = rows.findLastIndex((r) => r.outcome === 'authorised');
  const since = rows.slice(lastAuth + 1);
  const doubt = since.findLast(leavesDoubt);
  if (!doubt) return { kind: 'send', authorised: lastAuth >= 0 && since.length === 0 };
  switch (callClass) {
    case 'retry_safe':
      // The provider deduplicates by the key we resend: a repeat cannot bill twice.
      return { kind: 'send', authorised: false };
    case 'pollable':
    case 'ambiguous':
      return { kind: 'review', row: doubt };
  }
}

/** The unit calls that block a repeat until a person approves (for review listings and tests). */
export function blockedCalls(
  rows: readonly LedgerRow[],
): { unitKey: string; callName: string; row: LedgerRow }[] {
  const byCall = new Map<string, LedgerRow[]>();
  for (const r of rows) {
    const k = `${r.unitKey}\u0000${r.callName}`;
    byCall.set(k, [...(byCall.get(k) ?? []), r]);
  }
  const out: { unitKey: string; callName: string; row: LedgerRow }[] = [];
  for (const list of byCall.values()) {
    const cls = list.find((r) => r.outcome !== 'authorised')?.callClass;
    if (cls !== 'ambiguous' && cls !== 'pollable') continue;
    const plan = decideFromLedger(list, cls);
    if (plan.kind === 'review') {
      out.push({ unitKey: plan.row.unitKey, callName: plan.row.callName, row: plan.row });
    }
  }
  return out;
}
