import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_JOB_ID_LENGTH,
  RUN_ID_PATTERN,
  formatJobId,
  isJobId,
  isVersion,
  parseJobId,
  randomToken,
} from './job-id.js';

describe('job ids', () => {
  it('carry the version prefix and parse back', () => {
    const id = formatJobId('v2');
    expect(id).toMatch(/^v2-[a-z2-7]{26}$/);
    expect(parseJobId(id)).toEqual({ version: 'v2', token: id.slice(3) });
    expect(isJobId(id)).toBe(true);
  });
  it('are valid run ids (the platforms that key runs by the job id) for every version', () => {
    for (const v of ['v1', 'v9', 'v10', 'v9999']) {
      const id = formatJobId(v);
      expect(id).toMatch(RUN_ID_PATTERN);
      expect(id.length).toBeLessThanOrEqual(MAX_JOB_ID_LENGTH);
    }
  });
  it('are unguessable: 26 base32 characters (130 bits), no repeats over 50,000 ids', () => {
    const ids = new Set(Array.from({ length: 50_000 }, () => formatJobId('v1')));
    expect(ids.size).toBe(50_000);
    // every character of the alphabet shows up in every position over many ids (no stuck bits)
    const tokens = [...ids].slice(0, 5000).map((i) => i.slice(3));
    for (let pos = 0; pos < 25; pos++) expect(new Set(tokens.map((t) => t[pos])).size).toBe(32);
  });
  it('encode the random bytes exactly (injected source)', () => {
    expect(randomToken(() => new Uint8Array(17))).toBe('a'.repeat(26));
    expect(randomToken(() => new Uint8Array(17).fill(255))).toBe('7'.repeat(26));
    const bytes = Uint8Array.from([0b00001_000, 0b10_00011_0, ...new Array(15).fill(0)]);
    expect(randomToken(() => bytes).slice(0, 4)).toBe('bcda');
    expect(formatJobId('v3', () => new Uint8Array(17))).toBe(`v3-${'a'.repeat(26)}`);
  });
  it('reject invalid versions', () => {
    for (const v of ['1', 'v0', 'v01', 'V1', 'v', 'v12345', 'v1-', '']) {
      expect(isVersion(v)).toBe(false);
      expect(() => formatJobId(v)).toThrowError(expect.objectContaining({ code: 'BAD_REQUEST' }));
    }
    expect(isVersion(1)).toBe(false);
  });
  it('parse nothing that is not an id', () => {
    const bad = [
      '',
      'v1',
      'v1-',
      'v1-ABCDEFGHIJKLMNOPQRSTUVWXYZ',
      `v1-${'a'.repeat(25)}`,
      `v1-${'a'.repeat(27)}`,
      `x1-${'a'.repeat(26)}`,
      `v1-${'a'.repeat(25)}1`,
      `v1-${'a'.repeat(26)}\n`,
      'a'.repeat(65),
    ];
    for (const b of bad) expect(parseJobId(b)).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), (s) => {
        const p = parseJobId(s);
        if (p) expect(`${p.version}-${p.token}`).toBe(s);
      }),
    );
    expect(isJobId(42)).toBe(false);
  });
});

describe('job ids: edges', () => {
  const token = 'a'.repeat(26);
  it('say which version was refused', () => {
    expect(() => formatJobId('v0')).toThrowError('invalid version "v0" (expected v1, v2, …)');
  });
  it('parse multi-digit versions', () => {
    expect(parseJobId(`v10-${token}`)).toEqual({ version: 'v10', token });
    expect(parseJobId(`v9999-${token}`)).toEqual({ version: 'v9999', token });
    expect(parseJobId(formatJobId('v205'))?.version).toBe('v205');
  });
  it('parse nothing with junk before the version', () => {
    for (const junk of ['x', ' ', '-', 'vv']) {
      expect(parseJobId(`${junk}v1-${token}`)).toBeUndefined();
      expect(isJobId(`${junk}v1-${token}`)).toBe(false);
      expect(isVersion(`${junk}v1`)).toBe(false);
    }
  });
  it('isJobId and isVersion accept only real strings', () => {
    expect(isJobId('v1')).toBe(false);
    expect(isJobId('not an id')).toBe(false);
    // a value that merely stringifies to a valid id or version is still not one
    expect(isJobId({ toString: () => `v1-${token}` })).toBe(false);
    expect(isVersion({ toString: () => 'v1' })).toBe(false);
    expect(isVersion('v1')).toBe(true);
  });
  it('the run id rule is anchored at both ends', () => {
    expect(RUN_ID_PATTERN.test('a-b_c9')).toBe(true);
    expect(RUN_ID_PATTERN.test('_a')).toBe(true);
    expect(RUN_ID_PATTERN.test('-abc')).toBe(false);
    expect(RUN_ID_PATTERN.test('abc!')).toBe(false);
    expect(RUN_ID_PATTERN.test('ab.c')).toBe(false);
  });
});
