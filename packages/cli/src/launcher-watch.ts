// When npm launched the command (`npx sluice dev`, `npm run dev`), the pid a user sees and
// signals is npm's, and the command runs under npm's `sh -c`: npm passes SIGTERM to the shell,
// which dies without passing it on, and a SIGKILL of npm reaches nobody. Either way the server
// would keep running with no one to stop it. So under npm the command watches its launchers (the
// shell and npm above it) and stops as on SIGTERM once either is gone. Outside npm nothing is
// watched: `nohup sluice gateway &` must outlive the shell that started it.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Whether npm started this process (it sets npm_lifecycle_event for `npx` and `npm run`). */
export function launchedByNpm(env: Record<string, string | undefined>): boolean {
  return Boolean(env.npm_lifecycle_event);
}

function parentOf(pid: number): number | undefined {
  try {
    // Linux: field 4 of /proc/<pid>/stat, after the parenthesised command name.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    try {
      return Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' }));
    } catch {
      return undefined;
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process is there (not ours to signal); only ESRCH means it is gone.
    return (error as { code?: string }).code !== 'ESRCH';
  }
}

/**
 * Calls `onGone` once when the parent or grandparent process exits (checked every `everyMs`).
 * Returns a stop function. Process 1 is never watched: being its child means the launcher
 * already left before we looked.
 */
export function watchLaunchers(onGone: () => void, everyMs = 500): () => void {
  const watched = [process.ppid, parentOf(process.ppid)].filter(
    (pid): pid is number => pid !== undefined && Number.isInteger(pid) && pid > 1,
  );
  const timer = setInterval(() => {
    if (watched.every(alive)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
