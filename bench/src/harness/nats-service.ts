// The suite's private nats-server: `-js` on a free port with its JetStream store in a temp
// directory (fsync as the server does by default), started only when a runnable participant needs
// it and removed with its store at the end (testkit's exit hook covers a crash). The binary is
// `NATS_SERVER_BIN`, else Debian's `/usr/sbin/nats-server`, else `nats-server` on PATH.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, onProcessExit } from '@sluice/testkit';
import type { NatsService } from '../adapter.js';

const HOST = '127.0.0.1';

export interface NatsServer extends NatsService {
  version: string;
  stop(): Promise<void>;
}

function binary(): string {
  if (process.env.NATS_SERVER_BIN) return process.env.NATS_SERVER_BIN;
  return existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';
}

/** The server's greeting (its INFO line), or undefined while it does not answer. */
function greeting(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port });
    const done = (line?: string) => {
      socket.destroy();
      resolve(line);
    };
    socket.setTimeout(500, () => done());
    socket.once('error', () => done());
    socket.once('data', (chunk) => {
      const text = chunk.toString();
      done(text.startsWith('INFO') ? text : undefined);
    });
  });
}

export async function startNatsServer(): Promise<NatsServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-nats-'));
  const child: ChildProcess = spawn(binary(), ['-a', HOST, '-p', String(port), '-js', '-sd', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (c: Buffer) => {
    if (output.length < 16_000) output += c.toString();
  });
  const unhook = onProcessExit(() => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    unhook();
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const info = await greeting(port);
    if (info) {
      const version = /"version":"([^"]+)"/.exec(info)?.[1] ?? 'unknown';
      return {
        url: `nats://${HOST}:${port}`,
        host: HOST,
        port,
        pid: child.pid as number,
        version,
        stop,
      };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error(`nats-server did not answer on ${port}: ${output}`);
}
