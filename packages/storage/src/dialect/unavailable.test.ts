// Which driver errors the dialects call "cannot answer now" (retryable) and which stay errors of
// the request or the code. Shapes as node-postgres and better-sqlite3 throw them.
import { describe, expect, it } from 'vitest';
import { pgUnavailable, sqliteUnavailable } from './unavailable.js';

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('pgUnavailable', () => {
  it('connection failures, server shutdowns and pool timeouts are unavailable', () => {
    for (const e of [
      withCode('ECONNREFUSED'),
      withCode('ECONNRESET'),
      withCode('08006'),
      withCode('08001'),
      withCode('57P01'),
      withCode('53300'),
      withCode('25P03'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated unexpectedly'),
      new Error('wrapped', { cause: withCode('ECONNRESET') }),
    ])
      expect(pgUnavailable(e), String(e)).toBe(true);
  });
  it('errors of the request or the code are not', () => {
    for (const e of [
      withCode('23505', 'duplicate key'),
      withCode('40001', 'could not serialize'),
      withCode('42P01', 'relation does not exist'),
      new TypeError('x is undefined'),
      'a string',
      null,
    ])
      expect(pgUnavailable(e), String(e)).toBe(false);
  });
});

describe('sqliteUnavailable', () => {
  it('a file locked past the busy timeout is unavailable; a constraint is not', () => {
    expect(sqliteUnavailable(withCode('SQLITE_BUSY'))).toBe(true);
    expect(sqliteUnavailable(withCode('SQLITE_BUSY_SNAPSHOT'))).toBe(true);
    expect(sqliteUnavailable(withCode('SQLITE_CONSTRAINT_UNIQUE'))).toBe(false);
    expect(sqliteUnavailable(withCode('ECONNREFUSED'))).toBe(false);
  });
});
