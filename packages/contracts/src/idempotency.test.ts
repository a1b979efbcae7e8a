import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyCall, classifyDeclaration, type CallClass } from './idempotency.js';

const base = { provider: 'acme', modality: 'image' };

// One row per line of the idempotency table (the header of idempotency.ts), first matching row wins.
const ROWS: [string, unknown, CallClass][] = [
  ['undefined declaration', undefined, 'fail_closed'],
  ['null declaration', null, 'fail_closed'],
  ['a string', 'sync', 'fail_closed'],
  ['missing provider', { modality: 'x', call: 'sync', idempotencyKey: 'none' }, 'fail_closed'],
  [
    'blank provider',
    { ...base, provider: '  ', call: 'sync', idempotencyKey: 'none' },
    'fail_closed',
  ],
  ['missing modality', { provider: 'a', call: 'sync', idempotencyKey: 'none' }, 'fail_closed'],
  ['unknown call type', { ...base, call: 'stream', idempotencyKey: 'none' }, 'fail_closed'],
  ['missing call type', { ...base, idempotencyKey: 'none' }, 'fail_closed'],
  ['unknown key support', { ...base, call: 'sync', idempotencyKey: 'maybe' }, 'fail_closed'],
  [
    'verified without evidence',
    { ...base, call: 'sync', idempotencyKey: 'verified' },
    'fail_closed',
  ],
  [
    'verified, blank evidence',
    { ...base, call: 'async-job', idempotencyKey: 'verified', evidence: '   ' },
    'fail_closed',
  ],
  [
    'verified with evidence, sync',
    {
      ...base,
      call: 'sync',
      idempotencyKey: 'verified',
      evidence: 'dup test 2026-11-01: 1 charge',
    },
    'retry_safe',
  ],
  [
    'verified with evidence, async',
    { ...base, call: 'async-job', idempotencyKey: 'verified', evidence: 'dup test' },
    'retry_safe',
  ],
  [
    'async job, documented key',
    { ...base, call: 'async-job', idempotencyKey: 'documented' },
    'pollable',
  ],
  ['async job, no key', { ...base, call: 'async-job', idempotencyKey: 'none' }, 'pollable'],
  [
    'sync, documented but unproven key',
    { ...base, call: 'sync', idempotencyKey: 'documented' },
    'ambiguous',
  ],
  ['sync, no key', { ...base, call: 'sync', idempotencyKey: 'none' }, 'ambiguous'],
  [
    'sync, no key, evidence given anyway',
    { ...base, call: 'sync', idempotencyKey: 'none', evidence: 'x' },
    'ambiguous',
  ],
];

describe('classifyCall: the idempotency table', () => {
  it.each(ROWS)('%s → %s', (_name, decl, expected) => {
    expect(classifyCall(decl)).toBe(expected);
    expect(classifyDeclaration(decl).callClass).toBe(expected);
  });

  it('explains a fail-closed decision', () => {
    const c = classifyDeclaration({ ...base, call: 'sync', idempotencyKey: 'verified' });
    expect(c).toEqual({
      callClass: 'fail_closed',
      reason: 'idempotencyKey "verified" without evidence',
    });
    const m = classifyDeclaration({ provider: 'a' });
    expect(m.callClass).toBe('fail_closed');
    if (m.callClass === 'fail_closed') expect(m.reason).toMatch(/^undeclared or malformed call: /);
  });

  it('keeps the parsed declaration for the other classes', () => {
    const decl = { ...base, call: 'sync', idempotencyKey: 'none' } as const;
    expect(classifyDeclaration(decl)).toEqual({ callClass: 'ambiguous', declaration: decl });
  });

  it('never throws and never calls anything unknown safe', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const c = classifyCall(value);
        expect(['fail_closed', 'retry_safe', 'pollable', 'ambiguous']).toContain(c);
        if (c === 'retry_safe') {
          const v = value as { idempotencyKey?: unknown; evidence?: unknown };
          expect(v.idempotencyKey).toBe('verified');
          expect(String(v.evidence).trim().length).toBeGreaterThan(0);
        }
      }),
    );
  });
});

describe('classifyDeclaration: fail-closed reasons', () => {
  it('names every problem it found, not only the first', () => {
    const c = classifyDeclaration({ ...base, call: 'stream', idempotencyKey: 'maybe' });
    expect(c.callClass).toBe('fail_closed');
    if (c.callClass !== 'fail_closed') return;
    const [, problems = ''] = c.reason.split('undeclared or malformed call: ');
    const parts = problems.split('; ');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toMatch(/sync.*async-job/);
    expect(parts[1]).toMatch(/none.*documented.*verified/);
  });
});
