import { describe, expect, it } from 'vitest';
import { formatJobId } from './job-id.js';
import {
  MAX_POINTER_BYTES,
  MessagePointer,
  decodePointer,
  encodePointer,
  parsePointer,
  withoutSnapshot,
} from './message-pointer.js';
import { MAX_POINTER_INPUT_BYTES, checkedSnapshot, snapshotWithInput } from './pointer-snapshot.js';

const identity = () => ({
  jobId: formatJobId('v1'),
  kind: 'demo.summarize',
  version: 'v1',
  tenantId: 'acme',
});
const row = {
  epoch: 0,
  lastSeq: 2,
  attempts: 0,
  maxAttempts: 3,
  createdAt: '2026-12-06T01:00:00.000Z',
  traceContext: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  apiKeyId: 'key_1',
};

describe('pointer format 2: the accepted row travels with the pointer', () => {
  it('round-trips the snapshot and its input through stream fields and records', () => {
    const p = {
      ...identity(),
      snapshot: snapshotWithInput(row, JSON.stringify({ text: 'hé', n: [1, 2] })),
    };
    const flat = encodePointer(p);
    expect(flat.slice(8, 10)).toEqual(['format', '2']);
    expect(decodePointer(flat)).toEqual(p);
    // As NATS carries it: the flat pairs as a record of strings.
    const record: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) record[flat[i] as string] = flat[i + 1] as string;
    expect(decodePointer(record)).toEqual(p);
    expect(JSON.parse(decodePointer(flat).snapshot?.inputJson ?? '')).toEqual({
      text: 'hé',
      n: [1, 2],
    });
  });

  it('an old pointer (no format field) still decodes, without a snapshot', () => {
    const flat = encodePointer(identity());
    expect(flat).not.toContain('format');
    expect(decodePointer(flat).snapshot).toBeUndefined();
  });

  it('an input over 8 KiB stays in the row: the pointer carries the rest and fits its bound', () => {
    const big = { text: 'x'.repeat(MAX_POINTER_INPUT_BYTES) };
    const snapshot = snapshotWithInput(row, JSON.stringify(big));
    expect(snapshot.inputJson).toBeUndefined();
    const flat = encodePointer({ ...identity(), snapshot });
    expect(decodePointer(flat).snapshot).toEqual(snapshot);
    // Exactly at the bound it is carried (bytes, not characters: 'é' is two).
    const fits = 'é'.repeat((MAX_POINTER_INPUT_BYTES - 2) / 2);
    expect(snapshotWithInput(row, JSON.stringify(fits)).inputJson).toBe(JSON.stringify(fits));
    expect(snapshotWithInput(row, JSON.stringify(`${fits}x`)).inputJson).toBeUndefined();
    const longest = { ...identity(), kind: `a.${'b'.repeat(98)}`, tenantId: 't'.repeat(64) };
    const full = encodePointer({
      ...longest,
      snapshot: snapshotWithInput(row, JSON.stringify(fits)),
    });
    expect(full.join('').length * 3).toBeGreaterThan(MAX_POINTER_BYTES); // counted in bytes
    expect(decodePointer(full).snapshot?.inputJson).toBe(JSON.stringify(fits));
  });

  it('refuses a malformed snapshot the way it refuses any malformed pointer', () => {
    const flat = encodePointer({
      ...identity(),
      snapshot: snapshotWithInput(row, JSON.stringify(1)),
    });
    const at = (name: string) => flat.indexOf(name) + 1;
    const mutate = (name: string, value: string) => {
      const copy = [...flat];
      copy[at(name)] = value;
      return copy;
    };
    for (const [name, value] of [
      ['format', '3'],
      ['epoch', '-1'],
      ['epoch', '1.5'],
      ['epoch', '01'],
      ['lastSeq', 'x'],
      ['maxAttempts', '0'],
      ['createdAt', 'yesterday'],
      ['input', 'x'.repeat(MAX_POINTER_INPUT_BYTES + 1)],
    ] as const) {
      expect(() => decodePointer(mutate(name, value)), `${name}=${value}`).toThrowError(
        expect.objectContaining({ code: 'BAD_REQUEST' }),
      );
    }
    const noEpoch = flat.filter((_v, i) => i !== at('epoch') - 1 && i !== at('epoch'));
    expect(() => decodePointer(noEpoch)).toThrowError(/snapshot\.epoch/);
    expect(() => parsePointer({ ...identity(), snapshot: { ...row, extra: 1 } })).toThrowError(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
    // Snapshot fields without the format that announces them are extra fields.
    const unannounced = flat.filter((_v, i) => i !== at('format') - 1 && i !== at('format'));
    expect(() => decodePointer(unannounced)).toThrowError(/invalid message pointer/);
  });

  it('a put-back entry carries no snapshot (its next delivery reads the row)', () => {
    const id = identity();
    const p = { ...id, snapshot: snapshotWithInput(row, JSON.stringify(1)) };
    expect(withoutSnapshot(p)).toEqual(id);
    expect(encodePointer(withoutSnapshot(p))).toEqual(encodePointer(id));
  });
});

describe('pointer format 2: the fast snapshot check accepts exactly what the schema accepts', () => {
  it('agrees with the zod schema on a valid snapshot and on every single-field mutation', () => {
    const base = { ...row, inputJson: '{"text":"hé"}' };
    const values: unknown[] = [
      0,
      1,
      -1,
      1.5,
      2 ** 31 - 1,
      2 ** 31,
      Number.NaN,
      '3',
      '2026-12-06T01:00:00.000Z',
      '2026-12-06T01:00:00Z',
      '2026-12-06T01:00:00+02:00',
      '2026-12-06T01:00:00.123456+02:00',
      '2026-12-06T01:00Z',
      '2026-12-06 01:00:00Z',
      '2026-02-30T01:00:00Z',
      '2026-12-06T01:00:00.000',
      'x'.repeat(100),
      'x'.repeat(101),
      'x'.repeat(200),
      'x'.repeat(201),
      'é'.repeat(MAX_POINTER_INPUT_BYTES / 2),
      'é'.repeat(MAX_POINTER_INPUT_BYTES / 2 + 1),
      '',
      null,
      undefined,
      {},
    ];
    const snapshots: unknown[] = [
      base,
      row,
      { ...base, extra: 'x' },
      { ...base, traceContext: undefined },
      [],
      null,
      'snapshot',
    ];
    // The common case takes the fast path (else it would only be the schema again).
    expect(checkedSnapshot(base)).toEqual(base);
    expect(checkedSnapshot(row)).toEqual(row);
    for (const key of Object.keys(base))
      for (const value of values) snapshots.push({ ...base, [key]: value });
    for (const snapshot of snapshots) {
      const candidate = { ...identity(), snapshot };
      const schema = MessagePointer.safeParse(candidate);
      let fast: unknown;
      try {
        fast = parsePointer(candidate);
      } catch {
        fast = undefined;
      }
      expect(fast, JSON.stringify(candidate)).toEqual(schema.success ? schema.data : undefined);
      // The fast check itself never accepts what the schema refuses.
      if (checkedSnapshot(snapshot)) expect(schema.success, JSON.stringify(snapshot)).toBe(true);
    }
  });
});
