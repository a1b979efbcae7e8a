// The fake provider's billing ledger: one JSON line per billed request, fsync'd before it
// answers, so a bill survives any crash of the caller. Tests count bills from this file only.
import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
} from 'node:fs';
import { dirname } from 'node:path';

export interface BillRecord {
  call: 'classify' | 'intents';
  jobId: string;
  unitKey: string;
  attemptId: string | null;
  /** The provider's id of the work (the intent job's id). */
  workId: string;
  fault: string | null;
  at: string;
}

export function appendBill(path: string, record: Omit<BillRecord, 'at'>): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'a');
  try {
    appendFileSync(fd, `${JSON.stringify({ ...record, at: new Date().toISOString() })}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function readLedger(path: string): BillRecord[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as BillRecord];
      } catch {
        return []; // a torn last line
      }
    });
}

/** Bills per `call:unitKey` for one job. */
export function billsOf(records: readonly BillRecord[], jobId: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records)
    if (r.jobId === jobId) out[`${r.call}:${r.unitKey}`] = (out[`${r.call}:${r.unitKey}`] ?? 0) + 1;
  return out;
}
