// The provider ledger as the guard uses it: four operations, so adapters can sit side by side —
// the database (`databaseLedger`: every Node runtime, and a push platform whose job store has the
// database at hand) and whatever a push platform's job store reaches instead (a gateway applying
// the same repository functions on its side, over a signed route). `recordIntent` is the fenced
// one: `undefined` when the attempt no longer holds the job, and then nothing was written.

import {
  callsForUnit,
  recordCallIntent,
  recordCallOutcome,
  recordExternalId,
  type CallIntent,
  type CallResult,
  type LedgerRow,
  type SluiceDatabase,
} from '@sluice/storage/d1';

export interface CallLedger {
  /** A unit's ledger in order (optionally one declared call). */
  callsForUnit(jobId: string, unitKey: string, callName?: string): Promise<LedgerRow[]>;
  /** The row of a call about to leave, committed before it leaves; `undefined` when fenced. */
  recordIntent(intent: CallIntent): Promise<LedgerRow | undefined>;
  recordOutcome(row: LedgerRow, result: CallResult): Promise<void>;
  recordExternalId(row: LedgerRow, externalId: string): Promise<void>;
}

export function databaseLedger(database: SluiceDatabase): CallLedger {
  const db = database.db;
  return {
    callsForUnit: (jobId, unitKey, callName) => callsForUnit(db, jobId, unitKey, callName),
    recordIntent: (intent) => recordCallIntent(db, intent),
    recordOutcome: (row, result) => recordCallOutcome(db, row.id, result),
    recordExternalId: (row, externalId) => recordExternalId(db, row.id, externalId),
  };
}
