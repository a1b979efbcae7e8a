// A private PostgreSQL cluster for a measurement: initdb into a temporary folder, one server on a
// free loopback port, removed on stop. The machine's shared server carries other sessions' work,
// so its WAL position and its CPU are not this run's alone; a private one's WAL is. Runs the
// Debian binaries as the `postgres` user (initdb refuses root). Dev tool, not a test fixture.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, waitFor } from '@sluice/testkit';

const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  url(database: string): string;
  /** The data directory (its `postmaster.pid` names the server's pid). */
  readonly dataDir: string;
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

const asPostgres = (args: string[]) =>
  process.getuid?.() === 0
    ? ['runuser', ['-u', 'postgres', '--', ...args]]
    : [args[0]!, args.slice(1)];

export async function startPrivatePostgres(settings: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const [cmd, args] = asPostgres([
    `${BIN}/initdb`,
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '--no-sync',
  ]);
  execFileSync(cmd as string, args as string[], { stdio: 'ignore' });
  const port = await freePort();
  const flags = Object.entries({
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dir,
    ...settings,
  }).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  const [scmd, sargs] = asPostgres([`${BIN}/postgres`, '-D', data, '-p', String(port), ...flags]);
  const server: ChildProcess = spawn(scmd as string, sargs as string[], {
    stdio: 'ignore',
    detached: true,
  });
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitFor(
    async () => {
      const c = new pg.Client({ connectionString: admin });
      try {
        await c.connect();
        return true;
      } catch {
        return false;
      } finally {
        await c.end().catch(() => {});
      }
    },
    { timeoutMs: 30_000, intervalMs: 200, message: 'private postgres did not start' },
  );
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    url,
    dataDir: data,
    async createDatabase(name: string) {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`create database ${name}`);
      await c.end();
      return url(name);
    },
    async stop() {
      if (server.pid && server.exitCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        process.kill(-server.pid, 'SIGINT'); // fast shutdown
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (server.exitCode === null) process.kill(-server.pid, 'SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  } satisfies PrivatePostgres;
}
