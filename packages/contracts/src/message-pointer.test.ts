import { describe, expect, it } from 'vitest';
import { formatJobId } from './job-id.js';
import {
  MAX_POINTER_BYTES,
  MessagePointer,
  decodePointer,
  encodePointer,
  parsePointer,
} from './message-pointer.js';

const pointer = () => ({
  jobId: formatJobId('v1'),
  kind: 'demo.summarize',
  version: 'v1',
  tenantId: 'acme',
});

describe('message pointer', () => {
  it('carries an optional priority for routing, validated, and never writes it into an entry', () => {
    const plain = pointer();
    const p = { ...plain, priority: 7 };
    expect(parsePointer(p).priority).toBe(7);
    expect(encodePointer(p)).toEqual(encodePointer(plain));
    expect(decodePointer(encodePointer(p)).priority).toBeUndefined();
    for (const priority of [11, -11, 1.5]) {
      expect(() => parsePointer({ ...pointer(), priority })).toThrowError(/priority/);
    }
  });

  it('round-trips through flat stream fields and records', () => {
    const p = pointer();
    const flat = encodePointer(p);
    expect(flat).toEqual([
      'jobId',
      p.jobId,
      'kind',
      'demo.summarize',
      'version',
      'v1',
      'tenantId',
      'acme',
    ]);
    expect(decodePointer(flat)).toEqual(p);
    expect(decodePointer({ ...p })).toEqual(p);
  });
  it('requires the id prefix to equal the version', () => {
    expect(() => parsePointer({ ...pointer(), version: 'v2' })).toThrowError(
      /job id prefix must equal the version/,
    );
  });
  it('rejects extra, missing and malformed fields', () => {
    expect(() => parsePointer({ ...pointer(), input: 'x' })).toThrowError(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
    const { tenantId: _t, ...missing } = pointer();
    expect(() => parsePointer(missing)).toThrowError(/tenantId/);
    expect(() => parsePointer({ ...pointer(), kind: 'Demo' })).toThrowError(/kind/);
    expect(() => parsePointer({ ...pointer(), tenantId: '../etc' })).toThrowError(/tenantId/);
    expect(() => decodePointer(['jobId'])).toThrowError(/pairs/);
  });
  it('rejects anything over the bound before parsing it', () => {
    const p = pointer();
    const big = [...encodePointer(p), 'padding', 'x'.repeat(MAX_POINTER_BYTES)];
    expect(() => decodePointer(big)).toThrowError(
      expect.objectContaining({ code: 'POINTER_TOO_LARGE' }),
    );
    expect(() => decodePointer({ ...p, padding: 'x'.repeat(MAX_POINTER_BYTES) })).toThrowError(
      expect.objectContaining({ code: 'POINTER_TOO_LARGE' }),
    );
    // multi-byte characters count as bytes, not as characters
    // (3 bytes each: one character more than a third of the bound is over it)
    const pad = '한'.repeat(Math.floor(MAX_POINTER_BYTES / 3) + 1);
    expect(() => decodePointer({ ...p, pad })).toThrowError(
      expect.objectContaining({ code: 'POINTER_TOO_LARGE' }),
    );
  });
  it('accepts exactly the bound and refuses one byte more (bytes counted over names and values)', () => {
    const p = pointer();
    const used = encodePointer(p).join('').length;
    const pad = (n: number) => ['p', 'x'.repeat(n)];
    const fits = [...encodePointer(p), ...pad(MAX_POINTER_BYTES - used - 1)];
    expect(() => decodePointer(fits)).toThrowError(/invalid message pointer/); // size passes, then the extra field is refused
    const over = [...encodePointer(p), ...pad(MAX_POINTER_BYTES - used)];
    expect(() => decodePointer(over)).toThrowError(
      expect.objectContaining({ code: 'POINTER_TOO_LARGE' }),
    );
  });
  it('encode refuses an invalid pointer', () => {
    expect(() => encodePointer({ ...pointer(), version: 'v9' })).toThrowError(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
  });
});

describe('message pointer: errors', () => {
  it('refuses a malformed job id with BAD_REQUEST naming the field', () => {
    for (const jobId of ['nope', '', `v1-${'A'.repeat(26)}`]) {
      expect(() => parsePointer({ ...pointer(), jobId })).toThrowError(
        expect.objectContaining({ code: 'BAD_REQUEST', message: expect.stringMatching(/jobId: /) }),
      );
    }
  });
  it('points a prefix mismatch at the version field', () => {
    expect(() => parsePointer({ ...pointer(), version: 'v2' })).toThrowError(
      'invalid message pointer: version: the job id prefix must equal the version',
    );
  });
  it('lists every bad field, separated by "; "', () => {
    try {
      parsePointer({ ...pointer(), kind: 'Demo', tenantId: '../etc' });
      expect.unreachable();
    } catch (e) {
      const message = (e as Error).message;
      expect(message).toMatch(/^invalid message pointer: kind: [^;]+; tenantId: [^;]+$/);
    }
  });
  it('odd field lists are a BAD_REQUEST', () => {
    expect(() => decodePointer(['jobId', 'x', 'kind'])).toThrowError(
      expect.objectContaining({
        code: 'BAD_REQUEST',
        message: 'pointer fields must come in pairs',
      }),
    );
  });
  it('an oversized pointer reports its size and the limit', () => {
    const p = pointer();
    const used = encodePointer(p).join('').length;
    const n = MAX_POINTER_BYTES - used - 1 + 10; // 10 bytes over once 'p' is counted
    expect(() => decodePointer([...encodePointer(p), 'p', 'x'.repeat(n)])).toThrowError(
      expect.objectContaining({
        code: 'POINTER_TOO_LARGE',
        message: `pointer is ${MAX_POINTER_BYTES + 10} bytes (max ${MAX_POINTER_BYTES})`,
        details: { bytes: MAX_POINTER_BYTES + 10, max: MAX_POINTER_BYTES },
      }),
    );
  });
  it('a record of exactly 1 KiB passes the size check; 1 KiB + 1 does not', () => {
    const p = pointer();
    const used = encodePointer(p).join('').length;
    const fits = { ...p, p: 'x'.repeat(MAX_POINTER_BYTES - used - 1) };
    expect(() => decodePointer(fits)).toThrowError(/invalid message pointer/); // extra field refused after the size check
    const over = { ...p, p: 'x'.repeat(MAX_POINTER_BYTES - used) };
    expect(() => decodePointer(over)).toThrowError(
      expect.objectContaining({ code: 'POINTER_TOO_LARGE' }),
    );
  });
});

describe('message pointer: the fast check accepts exactly what the schema accepts', () => {
  it('agrees with the zod schema on valid pointers and on every single-field mutation', () => {
    const base = {
      jobId: 'v12-abcdefghijklmnopqrstuvwxyz',
      kind: 'media.transcode',
      version: 'v12',
      tenantId: 'acme_1',
    };
    const values = [
      'v12',
      'v1',
      'v0',
      'v12345',
      'V12',
      'v12-abcdefghijklmnopqrstuvwxyz',
      'v1-abcdefghijklmnopqrstuvwxyz',
      'v12-abcdefghijklmnopqrstuvwxy',
      'v12-abcdefghijklmnopqrstuvwxy1',
      'v12-abcdefghijklmnopqrstuvwxyz\n',
      'media.transcode',
      'media',
      'Media.x',
      `a.${'b'.repeat(98)}`,
      `a.${'b'.repeat(97)}`,
      'acme_1',
      '_acme',
      'a'.repeat(64),
      'a'.repeat(65),
      '',
      7,
      null,
      undefined,
    ];
    const candidates: unknown[] = [base, { ...base, extra: 'x' }, { ...base, kind: undefined }, []];
    for (const key of Object.keys(base))
      for (const value of values) candidates.push({ ...base, [key]: value });
    for (const candidate of candidates) {
      const schema = MessagePointer.safeParse(candidate);
      let fast: unknown;
      try {
        fast = parsePointer(candidate);
      } catch {
        fast = undefined;
      }
      expect(fast, JSON.stringify(candidate)).toEqual(schema.success ? schema.data : undefined);
    }
  });
});
