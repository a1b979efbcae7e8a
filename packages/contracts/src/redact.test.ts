// Catches a redaction that leaks or damages: each path is replaced (nested, through arrays as a
// batch job's inputs are), absent fields stay absent, other sides and fields are untouched, and
// the value given is never mutated (the stored job must keep its real input).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseRedactPaths, REDACTED, redactJobData } from './redact.js';

const schemas = {
  input: z.object({
    key: z.string(),
    auth: z.object({ token: z.string() }).optional(),
    n: z.number(),
  }),
  output: z.object({ token: z.string() }).nullable(),
};
const paths = parseRedactPaths(
  'demo.x',
  ['input.key', 'input.auth.token', 'output.token'],
  schemas,
);

describe('redactJobData', () => {
  it('replaces each path of the side, nested and through arrays, without mutating', () => {
    const input = { key: 'k', auth: { token: 't' }, n: 1 };
    const frozen = JSON.stringify(input);
    expect(redactJobData(paths, 'input', input)).toEqual({
      key: REDACTED,
      auth: { token: REDACTED },
      n: 1,
    });
    expect(JSON.stringify(input)).toBe(frozen);
    expect(redactJobData(paths, 'input', [input, { key: 'k2', n: 2 }])).toEqual([
      { key: REDACTED, auth: { token: REDACTED }, n: 1 },
      { key: REDACTED, n: 2 },
    ]);
    expect(redactJobData(paths, 'output', { token: 'o' })).toEqual({ token: REDACTED });
    expect(redactJobData(paths, 'output', null)).toBeNull();
    expect(redactJobData(undefined, 'input', input)).toBe(input);
  });

  it('looks through optional and nullable wrappers when checking a path', () => {
    expect(() => parseRedactPaths('demo.x', ['input.auth.tokn'], schemas)).toThrowError(/tokn/);
    expect(() => parseRedactPaths('demo.x', ['output.x'], schemas)).toThrowError(/"x"/);
    expect(() => parseRedactPaths('demo.x', ['state.key'], schemas)).toThrowError(/input/);
  });
});
