// SIGTERM/SIGINT → drain → exit. A second signal during the drain exits at once.

export interface Stoppable {
  stop(opts: { deadlineMs?: number }): Promise<void>;
}

export interface InstallShutdownOptions {
  /** How long running work may take to finish (default 30 s). */
  deadlineMs?: number;
  signals?: readonly NodeJS.Signals[];
  /** Injectable for tests (default `process.exit`). */
  exit?: (code: number) => void;
  onError?: (error: unknown) => void;
}

/** Returns a function that removes the handlers again. */
export function installShutdown(worker: Stoppable, opts: InstallShutdownOptions = {}): () => void {
  const signals = opts.signals ?? ['SIGTERM', 'SIGINT'];
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const onSignal = () => {
    if (stopping) return exit(1);
    stopping = true;
    worker.stop({ deadlineMs: opts.deadlineMs ?? 30_000 }).then(
      () => exit(0),
      (error: unknown) => {
        (opts.onError ?? ((e) => process.stderr.write(`shutdown failed: ${String(e)}\n`)))(error);
        exit(1);
      },
    );
  };
  for (const s of signals) process.on(s, onSignal);
  return () => {
    for (const s of signals) process.off(s, onSignal);
  };
}
