import { MissingDependencyError, SluiceError } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, UsageError, formatCliError } from './cli-errors.js';

function sys(code: string, extra: Record<string, unknown> = {}) {
  return Object.assign(new Error(`${code}: x`), { code, ...extra });
}

describe('formatCliError: one line and the documented exit code for anything thrown', () => {
  it.each([
    [new UsageError('bad flag'), EXIT_CODES.usage, 'sluice: bad flag'],
    [
      new SluiceError('BAD_REQUEST', 'keys create needs --tenant'),
      EXIT_CODES.usage,
      'sluice: keys create needs --tenant',
    ],
    [
      new SluiceError('INVALID_CONFIG', 'no sluice.config.ts'),
      EXIT_CODES.config,
      'sluice: no sluice.config.ts',
    ],
    [
      new MissingDependencyError('pg', 'a PostgreSQL database'),
      EXIT_CODES.config,
      'sluice: a PostgreSQL database needs the package "pg": install it (npm install pg)',
    ],
    [
      sys('EADDRINUSE', { port: 3000 }),
      EXIT_CODES.unavailable,
      'sluice: port 3000 is already in use (choose another with --port or PORT)',
    ],
    [
      new TypeError('fetch failed', {
        cause: sys('ECONNREFUSED', { address: '127.0.0.1', port: 3000 }),
      }),
      EXIT_CODES.unavailable,
      'sluice: cannot reach a service: connection refused by 127.0.0.1:3000',
    ],
    [
      new Error('Connection terminated unexpectedly'),
      EXIT_CODES.unavailable,
      'sluice: a database or Redis connection failed: the connection was dropped (Connection terminated unexpectedly)',
    ],
    [
      Object.assign(new Error('database "x" does not exist'), { code: '3D000' }),
      EXIT_CODES.unavailable,
      'sluice: database unavailable: database "x" does not exist',
    ],
    [
      new SluiceError('NOT_FOUND', 'job not found', { details: { httpStatus: 404 } }),
      EXIT_CODES.refused,
      'sluice: NOT_FOUND: job not found',
    ],
    [
      new SluiceError('BAD_REQUEST', 'invalid input', { details: { httpStatus: 400 } }),
      EXIT_CODES.refused,
      'sluice: BAD_REQUEST: invalid input',
    ],
    [
      new SluiceError('UNAVAILABLE', 'gateway down'),
      EXIT_CODES.unavailable,
      'sluice: gateway down',
    ],
    [
      new RangeError('boom\n  at x (y.js:1:1)'),
      EXIT_CODES.failure,
      'sluice: RangeError: boom at x (y.js:1:1)',
    ],
    ['a string', EXIT_CODES.failure, 'sluice: a string'],
  ])('%o', (error, exitCode, line) => {
    expect(formatCliError(error)).toEqual({ exitCode, line });
  });
});
