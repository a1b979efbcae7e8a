// Bad input on the real command line: each mistake prints ONE line on stderr, starting with
// "sluice: ", no stack, and exits with its documented code. Catches a path that escapes the one
// error formatter (a raw stack, a second line, exit 1 for everything).

import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, pgAdminUrl } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/cli-errors.js';
import { runCommand } from './run-command.js';

const BIN = fileURLToPath(new URL('../bin/sluice.js', import.meta.url));
const QUICKSTART = fileURLToPath(new URL('../../../examples/quickstart', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sluice-bad-input-'));
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  DATABASE_URL: join(dir, 'sluice.db'),
  SLUICE_BLOBS_DIR: join(dir, 'blobs'),
};

let busy: Server;
let busyPort: number;
beforeAll(async () => {
  busyPort = await freePort();
  busy = createServer();
  await new Promise<void>((r) => busy.listen(busyPort, '127.0.0.1', r));
});
afterAll(() => new Promise<void>((r) => busy.close(() => r())));

function missingDatabaseUrl(): string {
  const url = new URL(pgAdminUrl());
  url.pathname = `/sluice_no_such_db_${process.pid}`;
  return url.href;
}

const CASES: [string, () => string[], number, RegExp][] = [
  [
    'missing database',
    () => ['migrate', '--database', missingDatabaseUrl()],
    EXIT_CODES.unavailable,
    /^sluice: (database unavailable: database "sluice_no_such_db_\d+" does not exist|cannot reach a service: .*)$/,
  ],
  [
    'bad runtime name',
    () => ['gateway', '--runtime', 'kafka'],
    EXIT_CODES.config,
    /^sluice: SLUICE_RUNTIME \(--runtime\) must be embedded, valkey-streams or cloudflare-workflows, got "kafka"$/,
  ],
  [
    'a runtime without what it needs (asked of the runtime object)',
    () => ['gateway', '--runtime', 'cloudflare-workflows'],
    EXIT_CODES.config,
    /^sluice: the cloudflare-workflows runtime needs CLOUDFLARE_ACCOUNT_ID \(or accountId\)$/,
  ],
  [
    'busy port',
    () => ['gateway', '--port', String(busyPort)],
    EXIT_CODES.unavailable,
    /^sluice: port \d+ is already in use \(choose another with --port or PORT\)$/,
  ],
  [
    'unknown flag',
    () => ['gateway', '--bogus'],
    EXIT_CODES.usage,
    /^sluice: unknown option '--bogus' \(see sluice --help or sluice <command> --help\)$/,
  ],
  [
    'bad config path',
    () => ['gateway', '--config', 'no-such.config.ts'],
    EXIT_CODES.config,
    /^sluice: config file not found: .*no-such\.config\.ts$/,
  ],
  [
    'unknown command',
    () => ['frobnicate'],
    EXIT_CODES.usage,
    /^sluice: unknown command 'frobnicate'/,
  ],
  [
    'missing argument',
    () => ['jobs', 'get'],
    EXIT_CODES.usage,
    /^sluice: missing required argument 'id'/,
  ],
];

describe('bad input: one line, no stack, the documented exit code', () => {
  it.each(CASES)('%s', async (_name, args, exitCode, line) => {
    const r = await runCommand(process.execPath, [BIN, ...args()], { cwd: QUICKSTART, env });
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(line);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.code).toBe(exitCode);
  });
});
