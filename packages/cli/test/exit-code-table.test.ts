// The exit-code table of docs/configuration.md, row by row, on the real command line: each
// mistake prints ONE line on stderr starting with "sluice: ", no stack, names what is wrong (the
// flag, the variable, the field, the file and line), creates nothing it refused, ends in bounded
// time, and exits with its documented code. Catches a path that escapes the one error formatter
// (a raw stack, exit 1 for everything), a service that hangs the command (a postgres:// URL at a
// listener that never answers, a Redis that is not there), a URL read as a file name
// (`mysql://…` migrated as SQLite), and folders created where nobody asked for them.

import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, pgAdminUrl } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES, type ExitCode } from '../src/cli-errors.js';
import { runServe, type Served } from '../src/commands/serve.js';
import { resolveSettings } from '../src/define-config.js';
import config from './fixtures/ops.config.js';
import { runCommand } from './run-command.js';

const BIN = fileURLToPath(new URL('../bin/sluice.js', import.meta.url));
const QUICKSTART = fileURLToPath(new URL('../../../examples/quickstart', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sluice-exit-codes-'));
const env = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  DATABASE_URL: join(dir, 'sluice.db'),
  SLUICE_BLOBS_DIR: join(dir, 'blobs'),
};

/** Listeners that are not what the URL says: one never answers, one hangs up at once. */
const servers: Server[] = [];
const sockets: Socket[] = [];
async function listen(onSocket: (s: Socket) => void): Promise<number> {
  const port = await freePort();
  const server = createServer(onSocket);
  servers.push(server);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return port;
}
let busyPort: number;
let silentPort: number;
let droppingPort: number;
let closedPort: number;
let gateway: Served;

beforeAll(async () => {
  busyPort = await listen((s) => s.destroy());
  silentPort = await listen((s) => void sockets.push(s));
  droppingPort = await listen((s) => s.destroy());
  closedPort = await freePort();
  gateway = await runServe(
    'gateway',
    resolveSettings(config, {
      DATABASE_URL: join(dir, 'gateway.db'),
      SLUICE_BLOBS_DIR: join(dir, 'gateway-blobs'),
      PORT: '0',
    }),
    () => {},
  );
  // The gateway's own dev key is dropped in `sluice gateway`; this key is made in its database.
  const created = await runCommand(
    process.execPath,
    [BIN, 'keys', 'create', '--tenant', 't', '--database', join(dir, 'gateway.db')],
    { cwd: QUICKSTART, env },
  );
  apiKey = created.stdout.trim().split('\n').at(-1) ?? '';
}, 120_000);
let apiKey = '';
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await gateway?.stop(2_000);
});

function missingDatabaseUrl(): string {
  const url = new URL(pgAdminUrl());
  url.pathname = `/sluice_no_such_db_${process.pid}`;
  return url.href;
}

function brokenConfig(): string {
  const file = join(dir, 'broken.config.ts');
  writeFileSync(file, "import { jobs } from './jobs.js';\n\nexport default { jobs: ;\n");
  return file;
}

function notADatabase(): string {
  const file = join(dir, 'notes.txt');
  writeFileSync(file, 'these are notes, not a SQLite database\n'.repeat(200));
  return file;
}

interface Row {
  name: string;
  args: () => string[];
  env?: () => Record<string, string>;
  code: ExitCode;
  /** The one stderr line of a failure (a success: what stderr must match, else empty). */
  stderr: RegExp;
  stdout?: RegExp;
  /** Nothing the command refused exists afterwards. */
  absent?: () => string;
  /**
   * Ends within this long after its `waiting up to … ms` banner: the retry window bounds the
   * wait. Measured from the banner, not the spawn, because the command's start-up (the checkout
   * compiles its sources as it loads them) takes seconds on a loaded machine and is not what
   * these rows are about.
   */
  afterBannerWithinMs?: number;
}

/** Nothing waits forever: every row ends within this, start-up included, on a loaded machine. */
const ENDS_WITHIN_MS = 90_000;

const ROWS: Row[] = [
  {
    name: '0 done',
    args: () => ['migrate'],
    code: EXIT_CODES.ok,
    stderr: /^$/,
    stdout: /applied|up to date/,
  },
  {
    name: '0 done, LOG_LEVEL=debug prints the debug lines',
    args: () => ['migrate'],
    env: () => ({ LOG_LEVEL: 'debug' }),
    code: EXIT_CODES.ok,
    stderr: /"level":"debug".*"msg":"settings"/,
  },
  {
    name: '1 failed for another reason: a file that is not a database',
    args: () => ['migrate', '--database', notADatabase()],
    code: EXIT_CODES.failure,
    stderr: /^sluice: SqliteError: file is not a database$/,
  },
  {
    name: '2 unknown flag',
    args: () => ['gateway', '--bogus'],
    code: EXIT_CODES.usage,
    stderr: /^sluice: unknown option '--bogus' \(see sluice --help or sluice <command> --help\)$/,
  },
  {
    name: '2 unknown command',
    args: () => ['frobnicate'],
    code: EXIT_CODES.usage,
    stderr: /^sluice: unknown command 'frobnicate'/,
  },
  {
    name: '2 missing argument',
    args: () => ['jobs', 'get'],
    code: EXIT_CODES.usage,
    stderr: /^sluice: missing required argument 'id'/,
  },
  {
    name: '2 a malformed flag names the flag, not its environment variable',
    args: () => ['worker', '--concurrency', '-3'],
    code: EXIT_CODES.usage,
    stderr: /^sluice: --concurrency must be an integer from 1 to \d+, got "-3"$/,
  },
  {
    name: '3 a malformed environment variable names the variable',
    args: () => ['worker'],
    env: () => ({ SLUICE_CONCURRENCY: '-3' }),
    code: EXIT_CODES.config,
    stderr: /^sluice: SLUICE_CONCURRENCY must be an integer from 1 to \d+, got "-3"$/,
  },
  {
    name: '2 a database URL of another kind, as a flag, is refused before anything is created',
    args: () => ['migrate', '--database', 'mysql://x@y/z'],
    code: EXIT_CODES.usage,
    stderr:
      /^sluice: --database must be postgres:\/\/…, sqlite:… or a file path, got "mysql:\/\/x@y\/z"$/,
    absent: () => join(QUICKSTART, 'mysql:'),
  },
  {
    name: '3 a database URL of another kind, from the environment, names the variable',
    args: () => ['keys', 'list'],
    env: () => ({ DATABASE_URL: 'mysql://x@y/z' }),
    code: EXIT_CODES.config,
    stderr:
      /^sluice: DATABASE_URL must be postgres:\/\/…, sqlite:… or a file path, got "mysql:\/\/x@y\/z"$/,
    absent: () => join(QUICKSTART, 'mysql:'),
  },
  {
    name: '2 a Redis URL of another kind is refused',
    args: () => ['gateway', '--runtime', 'valkey-streams', '--redis-url', 'http://127.0.0.1:1'],
    code: EXIT_CODES.usage,
    stderr:
      /^sluice: --redis-url must be redis:\/\/…, rediss:\/\/… or redis\+cluster:\/\/host:port,host:port, got "http:\/\/127\.0\.0\.1:1"$/,
  },
  {
    name: '3 a config that does not compile shows the message, the file and line:column',
    args: () => ['migrate', '--config', brokenConfig()],
    code: EXIT_CODES.config,
    stderr: /^sluice: cannot load .*broken\.config\.ts:3:\d+: Unexpected ";"$/,
  },
  {
    name: '3 LOG_LEVEL outside the documented levels',
    args: () => ['gateway'],
    env: () => ({ LOG_LEVEL: 'verbose' }),
    code: EXIT_CODES.config,
    stderr:
      /^sluice: LOG_LEVEL must be one of trace\|debug\|info\|warn\|error\|fatal\|silent, got "verbose"$/,
  },
  {
    name: '3 bad runtime name',
    args: () => ['gateway', '--runtime', 'kafka'],
    code: EXIT_CODES.config,
    stderr:
      /^sluice: SLUICE_RUNTIME \(--runtime\) must be embedded, valkey-streams, cloudflare-workflows or nats, got "kafka"$/,
  },
  {
    name: '3 a runtime without what it needs (asked of the runtime object)',
    args: () => ['gateway', '--runtime', 'cloudflare-workflows'],
    code: EXIT_CODES.config,
    stderr:
      /^sluice: the cloudflare-workflows runtime needs CLOUDFLARE_ACCOUNT_ID \(or accountId\)$/,
  },
  {
    name: '3 bad config path',
    args: () => ['gateway', '--config', 'no-such.config.ts'],
    code: EXIT_CODES.config,
    stderr: /^sluice: config file not found: .*no-such\.config\.ts$/,
  },
  {
    name: '4 a SQLite file in a folder that does not exist: the folder is not created',
    args: () => ['keys', 'list', '--database', join(dir, 'no', 'such', 'x.db')],
    code: EXIT_CODES.unavailable,
    stderr:
      /^sluice: SQLite database .*x\.db: its folder .*\/no\/such does not exist \(create it, or choose another path\)$/,
    absent: () => join(dir, 'no'),
  },
  {
    name: '4 missing database',
    args: () => ['migrate', '--database', missingDatabaseUrl()],
    code: EXIT_CODES.unavailable,
    stderr:
      /^sluice: (database unavailable: database "sluice_no_such_db_\d+" does not exist|cannot reach a service: .*)$/,
  },
  {
    name: '4 a postgres:// URL at a listener that never answers, after the retry window',
    args: () => ['migrate', '--database', `postgres://u@127.0.0.1:${silentPort}/x`],
    env: () => ({ SLUICE_CONNECT_WAIT_MS: '1000' }),
    code: EXIT_CODES.unavailable,
    stderr: new RegExp(
      `^sluice: cannot reach PostgreSQL at 127\\.0\\.0\\.1:\\d+ within 1000 ms \\(SLUICE_CONNECT_WAIT_MS\\): connection timed out$`,
    ),
    stdout: /waiting up to 1000 ms for PostgreSQL at 127\.0\.0\.1:\d+/,
    // The window, then the attempt in flight (bounded at 10 s by the PostgreSQL probe).
    afterBannerWithinMs: 1_000 + 10_000 + 2_000,
  },
  {
    name: '4 a dropped database connection says so',
    args: () => ['migrate', '--database', `postgres://u@127.0.0.1:${droppingPort}/x`],
    env: () => ({ SLUICE_CONNECT_WAIT_MS: '500' }),
    code: EXIT_CODES.unavailable,
    stderr:
      /^sluice: cannot reach PostgreSQL at 127\.0\.0\.1:\d+ within 500 ms \(SLUICE_CONNECT_WAIT_MS\): the connection was dropped( \(.+\))?$/,
    stdout: /waiting up to 500 ms for PostgreSQL at 127\.0\.0\.1:\d+/,
    afterBannerWithinMs: 500 + 3_000,
  },
  {
    name: '4 Redis unreachable: a banner, then exit after the retry window',
    args: () => [
      'gateway',
      '--port',
      '0',
      '--runtime',
      'valkey-streams',
      '--redis-url',
      `redis://127.0.0.1:${closedPort}`,
      '--connect-wait-ms',
      '1500',
    ],
    code: EXIT_CODES.unavailable,
    stderr:
      /^sluice: cannot reach Redis at 127\.0\.0\.1:\d+ within 1500 ms \(--connect-wait-ms\): connection refused$/,
    stdout: /waiting up to 1500 ms for Redis at 127\.0\.0\.1:\d+/,
    afterBannerWithinMs: 1_500 + 3_000,
  },
  {
    name: '4 an S3 endpoint that never answers is cut by its timeout',
    args: () => ['gateway', '--port', '0'],
    env: () => ({
      SLUICE_BLOBS: 's3://sluice-test',
      SLUICE_S3_ENDPOINT: `http://127.0.0.1:${silentPort}`,
      SLUICE_S3_TIMEOUT_MS: '500',
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'y',
    }),
    code: EXIT_CODES.unavailable,
    // No banner: the 500 ms timeout is what makes it end at all (no timeout waited forever).
    stderr: /^sluice: blob store unavailable: .*(timed out|timeout).*$/i,
  },
  {
    name: '4 busy port',
    args: () => ['gateway', '--port', String(busyPort)],
    code: EXIT_CODES.unavailable,
    stderr: /^sluice: port \d+ is already in use \(choose another with --port or PORT\)$/,
  },
  {
    name: '4 gateway unreachable',
    args: () => ['jobs', 'list', '--url', `http://127.0.0.1:${closedPort}`],
    env: () => ({ SLUICE_API_KEY: apiKey }),
    code: EXIT_CODES.unavailable,
    stderr:
      /^sluice: cannot reach the gateway at http:\/\/127\.0\.0\.1:\d+ \(connection refused\)$/,
  },
  {
    name: '5 refused by the gateway: a key it does not know',
    args: () => ['jobs', 'list', '--url', gateway.gatewayUrl as string],
    env: () => ({ SLUICE_API_KEY: 'sk_nosuchkey_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }),
    code: EXIT_CODES.refused,
    stderr: /^sluice: UNAUTHORIZED: /,
  },
  {
    name: '5 refused by the gateway: BAD_REQUEST names the field and the rule',
    args: () => ['jobs', 'get', 'v1-doesnotexist', '--url', gateway.gatewayUrl as string],
    env: () => ({ SLUICE_API_KEY: apiKey }),
    code: EXIT_CODES.refused,
    stderr:
      /^sluice: BAD_REQUEST: Invalid input: id: must be a job id: v<version>-<26 characters a-z, 2-7>$/,
  },
];

describe('the exit-code table: one line, no stack, the documented code, nothing created', () => {
  it.each(ROWS.map((r) => [r.name, r] as const))(
    '%s',
    async (_name, row) => {
      const started = Date.now();
      const r = await runCommand(process.execPath, [BIN, ...row.args()], {
        cwd: QUICKSTART,
        env: { ...env, ...row.env?.() },
        timeoutMs: ENDS_WITHIN_MS + 5_000,
      });
      const lines = r.stderr.split('\n').filter(Boolean);
      if (row.code === EXIT_CODES.ok) expect(r.stderr).toMatch(row.stderr);
      else {
        expect(lines, r.stderr).toHaveLength(1);
        expect(lines[0]).toMatch(row.stderr);
      }
      expect(r.stderr).not.toMatch(/^\s+at /m);
      if (row.stdout) expect(r.stdout).toMatch(row.stdout);
      expect(r.code, r.stderr).toBe(row.code);
      expect(r.exitedAt - started).toBeLessThan(ENDS_WITHIN_MS);
      if (row.afterBannerWithinMs !== undefined) {
        const banner = r.stdoutAt.find(({ line }) => /waiting up to \d+ ms/.test(line));
        expect(banner, r.stdout).toBeDefined();
        expect(r.exitedAt - (banner?.at ?? 0)).toBeLessThan(row.afterBannerWithinMs);
      }
      if (row.absent) expect(existsSync(row.absent())).toBe(false);
    },
    ENDS_WITHIN_MS + 15_000,
  );
});
