// A private redis-server per test: own port, own temp dir, own pid. Never the shared 6379, so
// tests can crash, restart and flush it without disturbing anyone.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killQuietly, onProcessExit } from './exit-hooks.js';
import { freePort } from './free-port.js';
import { sleep } from './sleep.js';

export type RedisPersistence = 'none' | 'aof';

export interface StartRedisServerOptions {
  /** 'none' (default): nothing survives a restart. 'aof': append-only file, fsync every second. */
  persistence?: RedisPersistence;
  /** A fixed port; by default a free one is chosen. */
  port?: number;
}

export interface RedisServer extends AsyncDisposable {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly dir: string;
  /** The redis-server process itself (no wrapper); changes after restart(). */
  readonly pid: number;
  /** Graceful SHUTDOWN via SIGTERM (SIGKILL after 5 s). Keeps the dir. */
  stop(): Promise<void>;
  /** Sends `signal` (default SIGKILL, a crash) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /**
   * Crashes the server (SIGKILL) if it runs and starts it again on the same port and dir, so clients
   * reconnect. With 'none' the data is gone (unless someone ran SAVE: then dump.rdb is loaded, the
   * "rollback" restart). Without opts the previous persistence is kept.
   */
  restart(opts?: { persistence?: RedisPersistence }): Promise<void>;
}

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 10_000;

/** Sends one inline command over a raw socket and returns the raw reply ('' on error/timeout). */
function rawCommand(
  port: number,
  host: string,
  command: string,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    let reply = '';
    const done = () => {
      socket.destroy();
      resolve(reply);
    };
    socket.setTimeout(timeoutMs, done);
    socket.once('error', done);
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (isCompleteReply(reply)) done();
    });
  });
}

function isCompleteReply(reply: string): boolean {
  const header = /^\$(\d+)\r\n/.exec(reply);
  if (header) return reply.length >= header[0].length + Number(header[1]) + 2;
  return reply.includes('\r\n');
}

/** One PING over a raw socket; true on +PONG. */
export async function pingRedis(port: number, host = HOST, timeoutMs = 500): Promise<boolean> {
  return (await rawCommand(port, host, 'PING', timeoutMs)).startsWith('+PONG');
}

/** The pid of whichever redis-server answers on `port`, or undefined. */
async function redisProcessId(port: number): Promise<number | undefined> {
  const info = await rawCommand(port, HOST, 'INFO server', 500);
  const match = /process_id:(\d+)/.exec(info);
  return match ? Number(match[1]) : undefined;
}

function redisArgs(port: number, dir: string, persistence: RedisPersistence): string[] {
  const args = ['--port', String(port), '--bind', HOST, '--dir', dir, '--save', ''];
  args.push('--appendonly', persistence === 'aof' ? 'yes' : 'no');
  if (persistence === 'aof') args.push('--appendfsync', 'everysec');
  // Logs go to stdout, which we keep for error messages.
  args.push('--daemonize', 'no', '--logfile', '', '--protected-mode', 'no');
  return args;
}

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

/** Spawns once; rejects with the server's log if it exits or never answers PING. */
async function spawnOnce(
  port: number,
  dir: string,
  persistence: RedisPersistence,
): Promise<Running> {
  const bin = process.env.REDIS_SERVER_BIN || 'redis-server';
  const child = spawn(bin, redisArgs(port, dir, persistence), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const append = (chunk: Buffer) => {
    if (log.length < 64_000) log += chunk.toString();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  let hasExited = false;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      hasExited = true;
      resolve();
    });
    child.once('error', (error) => {
      log += `\nspawn ${bin} failed: ${error.message}`;
      hasExited = true;
      resolve();
    });
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!hasExited && Date.now() < deadline) {
    // Ready means OUR process answers: a PING alone could be answered by another server that
    // already holds the port (then our process is about to exit with "Address already in use").
    if ((await redisProcessId(port)) === child.pid) return { child, exited, output: () => log };
    await sleep(20);
  }
  if (!hasExited) {
    child.kill('SIGKILL');
    await exited;
  }
  throw new Error(`redis-server on port ${port} did not start:\n${log.trim()}`);
}

const ADDRESS_IN_USE = /address already in use/i;

export async function startRedisServer(opts: StartRedisServerOptions = {}): Promise<RedisServer> {
  let persistence: RedisPersistence = opts.persistence ?? 'none';
  const dir = mkdtempSync(join(tmpdir(), 'sluice-redis-'));
  let port = opts.port ?? (await freePort());
  let running: Running | undefined;
  // Another process may grab a free port between probe and bind: retry on a new port.
  for (let attempt = 0; ; attempt++) {
    try {
      running = await spawnOnce(port, dir, persistence);
      break;
    } catch (error) {
      const retry = opts.port === undefined && attempt < 5 && ADDRESS_IN_USE.test(String(error));
      if (!retry) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      port = await freePort();
    }
  }
  const unregister = onProcessExit(() => {
    if (running) killQuietly(running.child.pid ?? -1, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  async function kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const current = running;
    if (!current) return;
    current.child.kill(signal);
    await current.exited;
    running = undefined;
  }

  async function stop(): Promise<void> {
    const current = running;
    if (!current) return;
    current.child.kill('SIGTERM');
    const timer = setTimeout(() => current.child.kill('SIGKILL'), 5_000);
    await current.exited;
    clearTimeout(timer);
    running = undefined;
  }

  async function restart(restartOpts: { persistence?: RedisPersistence } = {}): Promise<void> {
    await kill('SIGKILL');
    persistence = restartOpts.persistence ?? persistence;
    // The old socket may linger briefly; redis sets SO_REUSEADDR, but retry a few times anyway.
    for (let attempt = 0; ; attempt++) {
      try {
        running = await spawnOnce(port, dir, persistence);
        return;
      } catch (error) {
        if (attempt >= 10 || !ADDRESS_IN_USE.test(String(error))) throw error;
        await sleep(100);
      }
    }
  }

  return {
    url: `redis://${HOST}:${port}`,
    host: HOST,
    port,
    dir,
    get pid(): number {
      return running?.child.pid ?? -1;
    },
    stop,
    kill,
    restart,
    async [Symbol.asyncDispose]() {
      await stop();
      unregister();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
