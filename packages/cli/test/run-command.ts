// Runs the real `sluice` command in a child process and collects what a user would see.

import { spawn, type ChildProcess } from 'node:child_process';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** When (Date.now()) each stdout line arrived, in order: how long after a line it exited. */
  stdoutAt: { line: string; at: number }[];
  /** When the command exited (Date.now()). */
  exitedAt: number;
}

export interface RunningCommand {
  child: ChildProcess;
  output(): string;
  /** Resolves once a line matching `re` was printed (stdout or stderr). */
  waitForLine(re: RegExp, timeoutMs: number): Promise<void>;
  /** Sends SIGTERM to the command itself and waits for the exit. */
  stop(): Promise<CommandResult>;
  /** Ctrl-C: SIGINT to the command's whole process group, as a terminal sends it; waits. */
  interrupt(): Promise<CommandResult>;
  /** SIGKILL to the whole process group: a cleanup net, never the tested path. */
  kill(): void;
  /** Settles when the command exits. */
  exited: Promise<CommandResult>;
}

export function startCommand(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string | undefined> },
): RunningCommand {
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  let all = '';
  const stdoutAt: CommandResult['stdoutAt'] = [];
  let partial = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d;
    all += d;
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) stdoutAt.push({ line, at: Date.now() });
    listeners.forEach((l) => l());
  });
  child.stderr?.on(
    'data',
    (d: Buffer) => ((stderr += d), (all += d), listeners.forEach((l) => l())),
  );
  const exited = new Promise<CommandResult>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr, stdoutAt, exitedAt: Date.now() })),
  );
  return {
    child,
    exited,
    output: () => all,
    waitForLine(re, timeoutMs) {
      return new Promise((resolve, reject) => {
        const settle = (error?: Error) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve();
        };
        const check = () => {
          if (re.test(all)) settle();
        };
        const timer = setTimeout(
          () => settle(new Error(`no line ${re} within ${timeoutMs} ms:\n${all}`)),
          timeoutMs,
        );
        listeners.add(check);
        void exited.then(() => {
          if (!re.test(all)) settle(new Error(`exited before ${re}:\n${all}`));
        });
        check();
      });
    },
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
    interrupt() {
      if (child.pid) process.kill(-child.pid, 'SIGINT');
      return exited;
    },
    kill() {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
}

export async function runCommand(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string | undefined>; timeoutMs?: number },
): Promise<CommandResult> {
  const running = startCommand(cmd, args, opts);
  const timer = setTimeout(() => running.kill(), opts.timeoutMs ?? 60_000);
  try {
    return await running.exited;
  } finally {
    clearTimeout(timer);
  }
}
