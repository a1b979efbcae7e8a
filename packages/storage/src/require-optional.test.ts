// A missing optional driver must surface as one typed error that names the package to install,
// not as Node's "Cannot find module" stack.
import { createRequire } from 'node:module';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMissingDependencyError } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { requireOptional } from './require-optional.js';

describe('requireOptional', () => {
  it('loads an installed package', () => {
    const kysely = requireOptional<{ Kysely: unknown }>(
      createRequire(import.meta.url),
      'kysely',
      'x',
    );
    expect(kysely.Kysely).toBeTypeOf('function');
  });

  it('names the package and what needed it when it is not installed', () => {
    // A require rooted in an empty folder outside the workspace: nothing resolves there.
    const outside = createRequire(join(mkdtempSync(join(tmpdir(), 'sluice-req-')), 'x.js'));
    let caught: unknown;
    try {
      requireOptional(outside, 'pg', 'a postgres:// DATABASE_URL');
    } catch (error) {
      caught = error;
    }
    expect(isMissingDependencyError(caught)).toBe(true);
    expect((caught as Error).message).toBe(
      'a postgres:// DATABASE_URL needs the package "pg": install it (npm install pg)',
    );
    expect((caught as { packageName: string }).packageName).toBe('pg');
  });

  it('lets other load failures through', () => {
    const boom = () => {
      throw new Error('native module ABI mismatch');
    };
    expect(() => requireOptional(boom, 'better-sqlite3', 'SQLite')).toThrowError(/ABI mismatch/);
  });
});
