// Runs a TypeScript entry in a child Node process, the way a gateway or worker runs in production
// but from sources. We run `node --import <tsx loader>` rather than the tsx CLI: the CLI is a wrapper
// process, so a SIGKILL to its pid would leave the real Node process running (SIGKILL cannot be
// passed on to a child).
// Here `handle.pid` IS the Node process that runs the entry.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { killQuietly, onProcessExit } from './exit-hooks.js';
import { createLineWatcher } from './line-watcher.js';

export interface SpawnNodeOptions {
  /** Arguments after the entry file. */
  args?: string[];
  /** Extra environment, merged over this process's environment. */
  env?: Record<string, string>;
  /** Working directory (default: this process's); relative entries resolve against it. */
  cwd?: string;
  /** Resolve only once a line of output matches; otherwise resolve right after spawn. */
  readyLine?: RegExp;
  /** How long to wait for `readyLine` (default 60 000 ms: tsx start-up is slow on 2 cores, slower still when several suites run side by side). */
  readyTimeoutMs?: number;
  /** Flags for node itself, before the entry (e.g. `--max-old-space-size=256`). */
  nodeArgs?: string[];
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildHandle extends AsyncDisposable {
  /** The pid of the Node process that runs the entry (no wrapper in between). */
  readonly pid: number;
  /** stdout and stderr so far, interleaved as they arrived (the last 4 MiB). */
  output(): string;
  /**
   * Resolves with the first line of output (from the start, not only new lines) matching `re`;
   * rejects on timeout (default 10 000 ms) or when the process exits first.
   */
  waitForLine(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends a signal if the process still runs (e.g. SIGSTOP/SIGCONT for a zombie worker). */
  signal(sig: NodeJS.Signals): void;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<ChildExit>;
  /** SIGTERM, then SIGKILL after `timeoutMs` (default 5 000 ms); waits for the exit. */
  stop(timeoutMs?: number): Promise<ChildExit>;
  /** Settles when the process exits, however it exits. */
  readonly exited: Promise<ChildExit>;
}

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export async function spawnNode(
  entry: string | URL,
  opts: SpawnNodeOptions = {},
): Promise<ChildHandle> {
  const cwd = opts.cwd ?? process.cwd();
  const file =
    entry instanceof URL || entry.startsWith('file:')
      ? fileURLToPath(entry)
      : resolvePath(cwd, entry);
  const nodeArgs = ['--import', tsxLoader, '--conditions=@sluice/source', ...(opts.nodeArgs ?? [])];
  const child = spawn(process.execPath, [...nodeArgs, file, ...(opts.args ?? [])], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const echo = process.env.SLUICE_TESTKIT_ECHO === '1';
  const watcher = createLineWatcher(echo ? `[${file.split('/').pop()}:${child.pid}] ` : undefined);
  child.stdout.setEncoding('utf8').on('data', (text: string) => watcher.push('stdout', text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => watcher.push('stderr', text));

  let running = true;
  const unregister = onProcessExit(() => killQuietly(child.pid ?? -1, 'SIGKILL'));
  const exited = new Promise<ChildExit>((resolve) => {
    const finish = (exit: ChildExit) => {
      running = false;
      unregister();
      watcher.close(`process exited (code ${exit.code}, signal ${exit.signal})`);
      resolve(exit);
    };
    // 'close' (not 'exit') so all output has been read before anyone sees the exit.
    child.once('close', (code, signal) => finish({ code, signal }));
    child.once('error', (error) => {
      watcher.push('stderr', `\nspawn failed: ${error.message}\n`);
      finish({ code: null, signal: null });
    });
  });

  const kill = async (): Promise<ChildExit> => {
    if (running) child.kill('SIGKILL');
    return exited;
  };
  const stop = async (timeoutMs = 5_000): Promise<ChildExit> => {
    if (!running) return exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (running) child.kill('SIGKILL');
    }, timeoutMs);
    const exit = await exited;
    clearTimeout(timer);
    return exit;
  };

  const handle: ChildHandle = {
    pid: child.pid ?? -1,
    output: () => watcher.output(),
    waitForLine: (re, timeoutMs = 10_000) => watcher.waitFor(re, timeoutMs),
    signal: (sig) => {
      if (running) child.kill(sig);
    },
    kill,
    stop,
    exited,
    [Symbol.asyncDispose]: async () => {
      await kill();
    },
  };

  if (opts.readyLine) {
    try {
      await handle.waitForLine(opts.readyLine, opts.readyTimeoutMs ?? 60_000);
    } catch (error) {
      await kill();
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(
        `spawnNode ${file}: not ready (${message})\n--- output ---\n${watcher.output()}`,
        { cause: error },
      );
    }
  }
  return handle;
}
