// A private `nats-server -js` per test run: its own free port and store directory, so tests can
// kill, pause and restart it without disturbing the machine's shared server. The binary is
// `NATS_SERVER_BIN`, else `nats-server` on PATH, else Debian's `/usr/sbin/nats-server`.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, onProcessExit, sleep } from '@sluice/testkit';

const HOST = '127.0.0.1';

export interface NatsServer extends AsyncDisposable {
  readonly url: string;
  readonly port: number;
  /** The JetStream store directory (kept across restarts unless asked otherwise). */
  readonly dir: string;
  readonly pid: number;
  stop(): Promise<void>;
  /** Sends `signal` (default SIGKILL: a crash) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Pauses (SIGSTOP) or resumes (SIGCONT) the server: a broker that hangs. */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void;
  /** Crashes it and starts it again on the same port; `wipe` deletes the store first (data loss). */
  restart(opts?: { wipe?: boolean }): Promise<void>;
}

function binary(): string {
  if (process.env.NATS_SERVER_BIN) return process.env.NATS_SERVER_BIN;
  return existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    // The server greets every connection with its INFO line.
    socket.once('data', (chunk) => done(chunk.toString().startsWith('INFO')));
  });
}

async function spawnOnce(port: number, dir: string): Promise<ChildProcess> {
  // NATS_SERVER_LOG=<file> keeps the server's log for a failure's post-mortem.
  const log = process.env.NATS_SERVER_LOG ? ['-l', process.env.NATS_SERVER_LOG] : [];
  const child = spawn(binary(), ['-a', HOST, '-p', String(port), '-js', '-sd', dir, ...log], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (c: Buffer) => {
    if (output.length < 32_000) output += c.toString();
  });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited: ${output}`);
    if (await answers(port)) return child;
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`nats-server did not answer on ${port}: ${output}`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startNatsServer(): Promise<NatsServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'sluice-nats-'));
  let child = await spawnOnce(port, dir);
  const unhook = onProcessExit(() => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.signalCode === 'SIGSTOP') child.kill('SIGCONT');
    child.kill(signal);
    await exited(child);
  };
  const server: NatsServer = {
    url: `nats://${HOST}:${port}`,
    port,
    dir,
    get pid() {
      return child.pid as number;
    },
    kill,
    signal: (s) => void child.kill(s),
    async restart(opts = {}) {
      await kill('SIGKILL');
      if (opts.wipe) rmSync(join(dir, 'jetstream'), { recursive: true, force: true });
      child = await spawnOnce(port, dir);
    },
    async stop() {
      await kill('SIGTERM');
      unhook();
      rmSync(dir, { recursive: true, force: true });
    },
    [Symbol.asyncDispose]: () => server.stop(),
  };
  return server;
}
