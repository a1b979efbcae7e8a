// One synchronous 'exit' listener for every fixture, so a crashed or aborted test run leaves no
// redis-server, child process or temp dir behind. 'exit' handlers cannot await: hooks must be sync.
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

/** Registers a synchronous cleanup for process exit; returns the function that unregisters it. */
export function onProcessExit(hook: ExitHook): () => void {
  if (!installed) {
    installed = true;
    process.on('exit', runHooks);
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
