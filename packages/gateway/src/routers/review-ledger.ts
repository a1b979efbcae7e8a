// Which ambiguous calls of a job a person's approval authorises: per (unit, call), the calls an
// earlier attempt left in billing doubt since the last authorisation. The same rule as the
// worker guard's `decideFromLedger` (packages/worker/src/guard/decide-from-ledger.ts), which is
// what will let exactly one more call through after the `authorised` row: a stored answer is
// reused, a pollable call with a recorded external id is polled, a retry-safe call resends
// with its key — none of those need (or get) an authorisation.

import type { LedgerRow } from '@sluice/storage/portable';

const IN_DOUBT = new Set(['pending', 'server_error', 'timeout', 'connection_dropped']);

function hasAnswer(r: LedgerRow): boolean {
  return r.outcome === 'succeeded' && typeof r.response === 'object' && r.response !== null;
}

function leavesDoubt(r: LedgerRow): boolean {
  return IN_DOUBT.has(r.outcome) || (r.outcome === 'succeeded' && !hasAnswer(r));
}

export interface BlockedCall {
  unitKey: string;
  callName: string;
  provider: string;
  outcome: string;
}

export function blockedCalls(rows: readonly LedgerRow[]): BlockedCall[] {
  const byCall = new Map<string, LedgerRow[]>();
  for (const r of rows) {
    const key = `${r.unitKey}\u0000${r.callName}`;
    byCall.set(key, [...(byCall.get(key) ?? []), r]);
  }
  const out: BlockedCall[] = [];
  for (const list of byCall.values()) {
    const first = list.find((r) => r.outcome !== 'authorised');
    if (!first || (first.callClass !== 'ambiguous' && first.callClass !== 'pollable')) continue;
    if (list.some(hasAnswer)) continue;
    if (
      first.callClass === 'pollable' &&
      list.some((r) => r.externalId !== null && r.outcome !== 'rejected')
    )
      continue;
    const since = list.slice(list.findLastIndex((r) => r.outcome === 'authorised') + 1);
    const doubt = since.findLast(leavesDoubt);
    if (doubt) {
      out.push({
        unitKey: doubt.unitKey,
        callName: doubt.callName,
        provider: doubt.provider,
        outcome: doubt.outcome,
      });
    }
  }
  return out;
}
