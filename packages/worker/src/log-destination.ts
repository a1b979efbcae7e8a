// Where the default worker logger writes: stderr, one write per turn of the event loop instead of
// one per line. At `debug` a busy worker logs two lines per job (its `running` and terminal
// state) and writes them in bursts, one burst per stored flush (the job state log, contracts
// job-state-log.ts): a synchronous write per line was a write(2) per line, half of what logging
// cost the worker's CPU. Lines are handed to
// the synchronous stderr stream at the end of the current microtask queue, and on `exit`, so a
// crash that ends the process (an uncaught throw, process.exit) still writes every line logged
// before it; only a kill in the same synchronous turn can lose them, as it could lose any
// in-flight write.

import { pino, type DestinationStream } from 'pino';

export function createCoalescingDestination(
  target: { write(chunk: string): unknown } = pino.destination({ fd: 2, sync: true }),
): DestinationStream {
  let pending: string[] = [];
  let exitHooked = false;
  const flush = () => {
    if (pending.length === 0) return;
    const lines = pending;
    pending = [];
    target.write(lines.length === 1 ? (lines[0] as string) : lines.join(''));
  };
  return {
    write(line: string) {
      if (pending.length === 0) {
        queueMicrotask(flush);
        if (!exitHooked) {
          exitHooked = true;
          process.once('exit', flush);
        }
      }
      pending.push(line);
    },
  };
}
