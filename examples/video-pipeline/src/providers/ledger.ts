// A provider's billing ledger: one JSON line per billable request, fsync'd before the provider
// answers, so the evidence of a bill survives a SIGKILL of the worker (or of the provider).
// Tests count bills from this file, never from anything the worker says.
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
  provider: 'speech' | 'video';
  jobId: string;
  unitKey: string;
  attemptId: string | null;
  idempotencyKey: string | null;
  billed: boolean;
  /** The provider's own id of the work (audio id, render id). */
  workId: string;
  /** The fault that shaped this request, if any. */
  fault: string | null;
  at: string;
}

export interface Ledger {
  readonly path: string;
  append(record: Omit<BillRecord, 'at'>): void;
}

export function openLedger(path: string): Ledger {
  mkdirSync(dirname(path), { recursive: true });
  return {
    path,
    append(record) {
      const fd = openSync(path, 'a');
      try {
        appendFileSync(fd, `${JSON.stringify({ ...record, at: new Date().toISOString() })}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** Reads a ledger from outside the provider; a torn last line (a crash mid-write) is skipped. */
export function readLedger(path: string): BillRecord[] {
  if (!existsSync(path)) return [];
  const out: BillRecord[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as BillRecord);
    } catch {
      // only the last line can be torn
    }
  }
  return out;
}

/** Billed requests per unit key, for one job. */
export function billsByUnit(records: readonly BillRecord[], jobId: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records)
    if (r.jobId === jobId && r.billed) out[r.unitKey] = (out[r.unitKey] ?? 0) + 1;
  return out;
}
