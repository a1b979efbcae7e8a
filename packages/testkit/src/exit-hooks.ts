// One synchronous cleanup for every fixture, so a crashed or aborted test run leaves no
// redis-server, child process, database or temp dir behind. It runs on 'exit' and also on
// SIGTERM/SIGINT/SIGHUP: vitest stops its fork workers with SIGTERM, which skips 'exit' entirely.
// Hooks must be synchronous ('exit' handlers cannot await).
type ExitHook = () => void;

const hooks = new Set<ExitHook>();
let installed = false;

function runHooks(): void {
  for (const hook of [...hooks]) {
    try {
      hook();
    } catch {
      // best effort: one failing hook must not stop the others
    }
  }
  hooks.clear();
}

const TERMINATING = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

function onSignal(signal: NodeJS.Signals): void {
  runHooks();
  // Our listener replaced the default "terminate" action. If nobody else handles the signal,
  // re-raise it without us so the process still dies the way the sender expected.
  const others = process.listeners(signal).filter((listener) => listener !== onSignal);
  if (others.length === 0) {
    for (const s of TERMINATING) process.off(s, onSignal);
    process.kill(process.pid, signal);
  }
}

/** Registers a synchronous cleanup for process exit; returns the function that unregisters it. */
export function onProcessExit(hook: ExitHook): () => void {
  if (!installed) {
    installed = true;
    process.on('exit', runHooks);
    for (const signal of TERMINATING) process.on(signal, onSignal);
  }
  hooks.add(hook);
  return () => {
    hooks.delete(hook);
  };
}

/** Sends a signal and ignores ESRCH: the process may already be gone. */
export function killQuietly(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already exited
  }
}
