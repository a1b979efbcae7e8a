// The provider's billing ledger: an append-only JSONL file, fsync'd after every record, so the
// evidence of a bill survives a SIGKILL of the caller or of the provider itself (the record is on
// disk before the provider answers). One provider process owns a ledger file at a time.
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { LedgerFilter, LedgerRecord, LedgerSummaryRow } from './types.js';

export interface Ledger {
  readonly path: string;
  /** Appends and fsyncs one record; `seq` and `at` are assigned here. */
  append(record: Omit<LedgerRecord, 'seq' | 'at'>): LedgerRecord;
  records(): readonly LedgerRecord[];
  /** Empties the file (durably) and the in-memory copy. */
  reset(): void;
  close(): void;
}

interface ParsedLedger {
  records: LedgerRecord[];
  /** Byte length of the well-formed prefix; anything after it is a torn final write. */
  goodBytes: number;
}

function parseLedgerText(text: string, path: string): ParsedLedger {
  const records: LedgerRecord[] = [];
  let offset = 0;
  let goodBytes = 0;
  while (offset < text.length) {
    const end = text.indexOf('\n', offset);
    // No newline: the last append was cut short by a crash; it was never acknowledged.
    if (end === -1) break;
    const line = text.slice(offset, end);
    offset = end + 1;
    if (line.trim() === '') {
      goodBytes = Buffer.byteLength(text.slice(0, offset));
      continue;
    }
    try {
      records.push(JSON.parse(line) as LedgerRecord);
    } catch (cause) {
      // A bad line before the end is corruption, not a torn write: refuse to guess.
      if (offset < text.length) throw new Error(`corrupt ledger line in ${path}`, { cause });
      break;
    }
    goodBytes = Buffer.byteLength(text.slice(0, offset));
  }
  return { records, goodBytes };
}

/** Reads a ledger file from outside the provider (e.g. after it was killed). Missing file: []. */
export function readLedgerFile(path: string): LedgerRecord[] {
  if (!existsSync(path)) return [];
  return parseLedgerText(readFileSync(path, 'utf8'), path).records;
}

export function createLedger(path: string): Ledger {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  let records: LedgerRecord[] = [];
  if (existsSync(path)) {
    const parsed = parseLedgerText(readFileSync(path, 'utf8'), path);
    records = parsed.records;
    // Drop a torn tail so the next append starts on a fresh line.
    truncateSync(path, parsed.goodBytes);
  }
  const fd = openSync(path, 'a');
  fsyncSync(fd);
  // Make the file's directory entry durable too (a new file is otherwise lost on power loss).
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
  let nextSeq = records.reduce((max, r) => Math.max(max, r.seq), 0) + 1;
  let closed = false;

  return {
    path,
    append(partial) {
      if (closed) throw new Error('ledger is closed');
      const record = { seq: nextSeq, ...partial, at: new Date().toISOString() } as LedgerRecord;
      writeSync(fd, `${JSON.stringify(record)}\n`);
      fsyncSync(fd);
      nextSeq += 1;
      records.push(record);
      return record;
    },
    records: () => records,
    reset() {
      ftruncateSync(fd, 0);
      fsyncSync(fd);
      records = [];
      nextSeq = 1;
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}

export function filterLedger(
  records: readonly LedgerRecord[],
  filter: LedgerFilter = {},
): LedgerRecord[] {
  return records.filter(
    (r) =>
      (filter.endpoint === undefined || r.endpoint === filter.endpoint) &&
      (filter.jobId === undefined || r.jobId === filter.jobId) &&
      (filter.unitKey === undefined || r.unitKey === filter.unitKey) &&
      (filter.attemptId === undefined || r.attemptId === filter.attemptId),
  );
}

/** Per (jobId, unitKey), in first-seen order: bills, arrivals, external ids and dedup hits. */
export function summarizeLedger(records: readonly LedgerRecord[]): LedgerSummaryRow[] {
  const rows = new Map<string, LedgerSummaryRow>();
  for (const r of records) {
    const key = JSON.stringify([r.jobId, r.unitKey]);
    let row = rows.get(key);
    if (!row) {
      row = {
        jobId: r.jobId,
        unitKey: r.unitKey,
        billed: 0,
        requests: 0,
        externalJobIds: [],
        dedupHits: 0,
      };
      rows.set(key, row);
    }
    row.requests += 1;
    if (r.billed) row.billed += 1;
    if (r.externalJobId !== undefined) row.externalJobIds.push(r.externalJobId);
    if (r.deduplicated) row.dedupHits += 1;
  }
  return [...rows.values()];
}
