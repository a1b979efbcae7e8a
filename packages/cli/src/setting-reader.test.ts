// A wrong value names where it came from: `--concurrency -3` was reported as SLUICE_CONCURRENCY
// (flags are folded into the environment before the settings are read).
import { isSluiceError } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { isUsageError } from './cli-errors.js';
import { createSettingReader } from './setting-reader.js';

const S = { env: 'SLUICE_CONCURRENCY', field: 'concurrency', flag: '--concurrency' };
const range = { min: 1, max: 10 };

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
}

describe('the setting reader names the source of a wrong value', () => {
  it('a flag: a usage error naming the flag', () => {
    const read = createSettingReader(
      { SLUICE_CONCURRENCY: '-3' },
      { SLUICE_CONCURRENCY: '--concurrency' },
    );
    const e = thrown(() => read.int(S, undefined, range));
    expect(isUsageError(e)).toBe(true);
    expect((e as Error).message).toBe('--concurrency must be an integer from 1 to 10, got "-3"');
  });

  it('the environment: a config error naming the variable', () => {
    const e = thrown(() => createSettingReader({ SLUICE_CONCURRENCY: 'x' }, {}).int(S, 4, range));
    expect(isSluiceError(e) && e.code).toBe('INVALID_CONFIG');
    expect((e as Error).message).toBe(
      'SLUICE_CONCURRENCY must be an integer from 1 to 10, got "x"',
    );
  });

  it('sluice.config.ts: a config error naming the field', () => {
    const e = thrown(() => createSettingReader({}, {}).int(S, 0, range));
    expect((e as Error).message).toBe(
      'concurrency in sluice.config.ts must be an integer from 1 to 10, got "0"',
    );
  });

  it('a good value says where it came from; a default names the flag and the variable', () => {
    const read = createSettingReader({ SLUICE_CONCURRENCY: '3' }, {});
    expect(read.int(S, 5, range)).toEqual({ value: 3, name: 'SLUICE_CONCURRENCY', from: 'env' });
    expect(createSettingReader({}, {}).int(S, undefined, range)).toEqual({
      value: undefined,
      name: '--concurrency / SLUICE_CONCURRENCY',
      from: 'default',
    });
  });
});
