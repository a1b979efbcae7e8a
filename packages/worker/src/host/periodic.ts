// A timer that runs an async task every `ms`, never two rounds at once, and never keeps the
// process alive by itself. A task that throws is reported to `onError`, and the next round runs.

export interface Periodic {
  stop(): void;
}

export function every(
  ms: number,
  task: () => Promise<void>,
  onError: (error: unknown) => void,
): Periodic {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    task()
      .catch(onError)
      .finally(() => (busy = false));
  }, ms);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
