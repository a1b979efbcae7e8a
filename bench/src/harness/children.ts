// Parent side of the child protocol: fork with tsx as an --import hook (so the pid is the node
// process doing the work, not a tsx wrapper), await typed messages, stop and reap.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CHILD_APPLICATION_NAME } from './pg-cost.js';
import type { ChildMessage, ChildSpec, ParentMessage } from './protocol.js';

const CHILD_MAIN = fileURLToPath(new URL('./child-main.ts', import.meta.url));
/** The bench package folder: `--import tsx` resolves from the child's cwd. */
const BENCH_DIR = fileURLToPath(new URL('../..', import.meta.url));

type MessageOf<T extends ChildMessage['type']> = Extract<ChildMessage, { type: T }>;

export interface ChildHandle {
  readonly pid: number;
  send(message: ParentMessage): void;
  /** A named call on a service child; rejects with the child's error or when it fails. */
  call<T = unknown>(method: string, args: unknown, timeoutMs: number): Promise<T>;
  /** Resolves with the next message of `type`; rejects if the child fails first. */
  next<T extends ChildMessage['type']>(type: T, timeoutMs: number): Promise<MessageOf<T>>;
  /** Every progress message goes here as well, until the returned function is called. */
  onProgress(fn: (message: MessageOf<'progress'>) => void): () => void;
  /** No failure seen and not stopped: the process can serve another run. */
  readonly usable: boolean;
  /** Rejects when the child reports an error or exits before `stop()`. */
  readonly failed: Promise<never>;
  stop(timeoutMs?: number): Promise<void>;
}

interface Waiter {
  type: ChildMessage['type'];
  resolve: (message: ChildMessage) => void;
}

/**
 * `BENCH_CPU_PROF=<dir>` profiles every child (`node --cpu-prof`, written when it exits): use it
 * with `--only` to profile one scenario.
 */
function profileArgs(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

/**
 * Children load the Sluice packages from their built `dist` (what an application runs; `npm run
 * bench` builds them first), so tsx compiles only the bench's own files: under the source
 * condition tsx compiled the packages too, with esbuild's `keepNames` wrappers on every function
 * and class, and the worker paid for them per job. `BENCH_SOURCE=1` runs the sources instead.
 */
function sourceArgs(): string[] {
  return process.env.BENCH_SOURCE === '1' ? ['--conditions=@sluice/source'] : [];
}

export function forkChild(spec: ChildSpec): ChildHandle {
  const child: ChildProcess = fork(CHILD_MAIN, [], {
    cwd: BENCH_DIR,
    execArgv: [...sourceArgs(), '--import', 'tsx', ...profileArgs()],
    env: {
      ...process.env,
      BENCH_CHILD: JSON.stringify(spec),
      NO_LOG_SUCCESS: '1',
      // pg reads it for every connection the child opens: the per-job cost probe waits for a
      // run's consumer and producer backends to exit (pg-cost.ts). Service children (the gateway
      // host) keep their own name: they are not part of a queue run.
      ...(spec.role === 'service' ? {} : { PGAPPNAME: CHILD_APPLICATION_NAME }),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiters: Waiter[] = [];
  const replies = new Map<number, (message: MessageOf<'reply'>) => void>();
  let nextCallId = 1;
  const progressListeners: ((message: MessageOf<'progress'>) => void)[] = [];
  let stopping = false;
  let rejectFailed: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (rejectFailed = reject));
  failed.catch(() => undefined); // observed through next()/races; never an unhandled rejection
  let failure: Error | undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const setFailure = (error: Error) => {
    failure ??= error;
    rejectFailed(failure);
  };
  child.on('message', (message: ChildMessage) => {
    if (message.type === 'error')
      return setFailure(new Error(`child ${child.pid}: ${message.message}`));
    if (message.type === 'progress') for (const fn of progressListeners) fn(message);
    if (message.type === 'reply') {
      replies.get(message.id)?.(message);
      replies.delete(message.id);
      return;
    }
    const index = waiters.findIndex((w) => w.type === message.type);
    if (index >= 0) waiters.splice(index, 1)[0]?.resolve(message);
  });
  child.once('exit', (code, signal) => {
    if (!stopping) setFailure(new Error(`child ${child.pid} exited early (${code ?? signal})`));
  });
  child.once('error', (error) => setFailure(error));

  return {
    get pid() {
      return child.pid ?? -1;
    },
    send(message) {
      if (child.connected) child.send(message);
    },
    call<T>(method: string, args: unknown, timeoutMs: number): Promise<T> {
      if (failure) return Promise.reject(failure);
      const id = nextCallId++;
      let timer: NodeJS.Timeout | undefined;
      const reply = new Promise<T>((resolve, reject) => {
        replies.set(id, (message) =>
          message.ok
            ? resolve(message.value as T)
            : reject(new Error(`child ${child.pid} ${method}: ${message.error ?? 'failed'}`)),
        );
        timer = setTimeout(() => {
          replies.delete(id);
          reject(new Error(`child ${child.pid}: ${method} took over ${timeoutMs} ms`));
        }, timeoutMs);
      });
      if (child.connected) child.send({ type: 'call', id, method, args } satisfies ParentMessage);
      return Promise.race([reply, failed]).finally(() => clearTimeout(timer));
    },
    next(type, timeoutMs) {
      if (failure) return Promise.reject(failure);
      let timer: NodeJS.Timeout | undefined;
      const message = new Promise<ChildMessage>((resolve, reject) => {
        waiters.push({ type, resolve });
        timer = setTimeout(
          () => reject(new Error(`child ${child.pid}: no '${type}' within ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      return Promise.race([message, failed]).finally(() => clearTimeout(timer)) as Promise<
        MessageOf<typeof type>
      >;
    },
    onProgress(fn) {
      progressListeners.push(fn);
      return () => {
        const index = progressListeners.indexOf(fn);
        if (index >= 0) progressListeners.splice(index, 1);
      };
    },
    get usable() {
      return !failure && !stopping && child.connected;
    },
    failed,
    async stop(timeoutMs = 10_000) {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.send({ type: 'stop' } satisfies ParentMessage);
      else child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Stops every child, even when some fail to stop cleanly. */
export async function stopAll(children: readonly ChildHandle[]): Promise<void> {
  await Promise.allSettled(children.map((c) => c.stop()));
}
