// The scale run's child processes (gateways, workers): forked with IPC under tsx, ready when they
// say so, stopped with SIGTERM (SIGKILL after 10 s) at the end.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface SoakChildren {
  spawn(
    module: URL,
    env: Record<string, string>,
  ): Promise<{ child: ChildProcess; ready: Record<string, unknown> }>;
  stopAll(): Promise<void>;
}

export function soakChildren(): SoakChildren {
  const children: ChildProcess[] = [];
  return {
    spawn(module, env) {
      const child = fork(fileURLToPath(module), [], {
        execArgv: ['--import', 'tsx'],
        // LOG_LEVEL=warn: at info a worker writes two JSON lines per job (queued→running→
        // succeeded), gigabytes over a million jobs; a high-volume deployment runs at warn.
        // Warnings and errors still reach this process's stderr.
        env: { ...process.env, LOG_LEVEL: 'warn', ...env },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.push(child);
      return new Promise((resolve, reject) => {
        child.once('exit', (code) => reject(new Error(`${module.pathname} exited ${code} early`)));
        child.on('message', (m: Record<string, unknown>) => {
          if (m.type === 'ready') resolve({ child, ready: m });
        });
      });
    },
    async stopAll() {
      for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
      await Promise.all(
        children.map((c) =>
          c.exitCode === null
            ? Promise.race([
                new Promise((r) => c.once('exit', r)),
                new Promise((r) => setTimeout(() => r(c.kill('SIGKILL')), 10_000)),
              ])
            : undefined,
        ),
      );
    },
  };
}
