// The ledger is the evidence: a crash mid-append must not make the file unreadable, and a
// record must be on disk (not buffered) once append returns.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLedger, filterLedger, readLedgerFile, summarizeLedger } from './ledger.js';
import type { LedgerRecord } from './types.js';

const dir = mkdtempSync(join(tmpdir(), 'fake-provider-ledger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function entry(
  unitKey: string,
  extra: Partial<LedgerRecord> = {},
): Omit<LedgerRecord, 'seq' | 'at'> {
  return {
    endpoint: 'sync',
    requestId: null,
    jobId: 'j',
    unitKey,
    attemptId: 'a',
    billed: true,
    deduplicated: false,
    outcome: 'ok',
    fault: null,
    callId: `call-${unitKey}`,
    ...extra,
  };
}

describe('ledger', () => {
  it('writes each record before append returns, and continues seq after reopening', () => {
    const path = join(dir, 'reopen', 'ledger.jsonl');
    const ledger = createLedger(path);
    ledger.append(entry('u1'));
    expect(readLedgerFile(path)).toHaveLength(1); // no close needed: already on disk
    ledger.close();
    const again = createLedger(path);
    expect(again.append(entry('u2')).seq).toBe(2);
    again.close();
  });

  it('drops a torn final line (a crash mid-append) and keeps appending on a fresh line', () => {
    const path = join(dir, 'torn.jsonl');
    const ledger = createLedger(path);
    ledger.append(entry('u1'));
    ledger.close();
    appendFileSync(path, '{"seq":2,"endpoint":"sy');
    expect(readLedgerFile(path)).toHaveLength(1);
    const again = createLedger(path);
    again.append(entry('u2'));
    again.close();
    expect(readLedgerFile(path).map((r) => [r.seq, r.unitKey])).toEqual([
      [1, 'u1'],
      [2, 'u2'],
    ]);
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('refuses a file corrupted before its last line', () => {
    const path = join(dir, 'corrupt.jsonl');
    writeFileSync(path, 'not json\n{"seq":1}\n');
    expect(() => readLedgerFile(path)).toThrow(/corrupt ledger line/);
  });

  it('reset empties the file durably', () => {
    const path = join(dir, 'reset.jsonl');
    const ledger = createLedger(path);
    ledger.append(entry('u1'));
    ledger.reset();
    expect(readLedgerFile(path)).toEqual([]);
    expect(ledger.append(entry('u2')).seq).toBe(1);
    ledger.close();
  });

  it('summarises per (job, unit) and filters', () => {
    const records = [
      entry('u1'),
      entry('u1', { billed: false, deduplicated: true }),
      entry('u2', { endpoint: 'async', externalJobId: 'ext_1' }),
      entry('u2', { billed: false, outcome: 'rejected-503' }),
    ].map((r, i) => ({ ...r, seq: i + 1, at: '' }));
    expect(summarizeLedger(records)).toEqual([
      { jobId: 'j', unitKey: 'u1', billed: 1, requests: 2, externalJobIds: [], dedupHits: 1 },
      {
        jobId: 'j',
        unitKey: 'u2',
        billed: 1,
        requests: 2,
        externalJobIds: ['ext_1'],
        dedupHits: 0,
      },
    ]);
    expect(filterLedger(records, { endpoint: 'async' })).toHaveLength(1);
    expect(filterLedger(records, { unitKey: 'u1', attemptId: 'a' })).toHaveLength(2);
  });
});
