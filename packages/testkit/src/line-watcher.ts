// Collects a child's stdout/stderr and lets tests wait for a line. Each stream keeps its own
// partial line, so interleaved writes from stdout and stderr never splice into one line.

type StreamName = 'stdout' | 'stderr';

interface Waiter {
  re: RegExp;
  cursor: number;
  resolve: (match: RegExpMatchArray) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface LineWatcher {
  push(stream: StreamName, text: string): void;
  output(): string;
  waitFor(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** No more output will come: pending waiters reject with `reason`. */
  close(reason: string): void;
}

const MAX_OUTPUT = 4 * 1024 * 1024;
const MAX_LINES = 50_000;

export function createLineWatcher(echoPrefix?: string): LineWatcher {
  let text = '';
  const lines: string[] = [];
  let dropped = 0; // lines shifted out of `lines`; cursors are absolute line numbers
  const partial: Record<StreamName, string> = { stdout: '', stderr: '' };
  const waiters = new Set<Waiter>();
  let closedReason: string | undefined;

  function scan(waiter: Waiter): boolean {
    for (let i = Math.max(waiter.cursor, dropped); i < dropped + lines.length; i++) {
      const match = (lines[i - dropped] ?? '').match(waiter.re);
      if (match) return settle(waiter, match);
    }
    waiter.cursor = dropped + lines.length;
    // A prompt may never end in a newline: look at the unfinished lines too.
    for (const rest of [partial.stdout, partial.stderr]) {
      const match = rest ? rest.match(waiter.re) : null;
      if (match) return settle(waiter, match);
    }
    return false;
  }

  function settle(waiter: Waiter, match: RegExpMatchArray): true {
    clearTimeout(waiter.timer);
    waiters.delete(waiter);
    waiter.resolve(match);
    return true;
  }

  return {
    push(stream, chunk) {
      if (echoPrefix) process.stderr.write(chunk.replace(/^(?=.)/gm, echoPrefix));
      text += chunk;
      if (text.length > MAX_OUTPUT) text = text.slice(text.length - MAX_OUTPUT);
      const parts = (partial[stream] + chunk).split(/\r?\n/);
      partial[stream] = parts.pop() ?? '';
      lines.push(...parts);
      if (lines.length > MAX_LINES) {
        const excess = lines.length - MAX_LINES;
        lines.splice(0, excess);
        dropped += excess;
      }
      for (const waiter of [...waiters]) scan(waiter);
    },
    output: () => text,
    waitFor(re, timeoutMs) {
      // A /g or /y regex keeps lastIndex between calls; strip them so each line is tested afresh.
      const plain = new RegExp(re.source, re.flags.replace(/[gy]/g, ''));
      return new Promise<RegExpMatchArray>((resolve, reject) => {
        const waiter: Waiter = {
          re: plain,
          cursor: 0,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            reject(new Error(`no line matching ${re} within ${timeoutMs} ms`));
          }, timeoutMs),
        };
        if (scan(waiter)) return;
        if (closedReason !== undefined) {
          clearTimeout(waiter.timer);
          reject(new Error(`no line matching ${re}: ${closedReason}`));
          return;
        }
        waiters.add(waiter);
      });
    },
    close(reason) {
      closedReason = reason;
      for (const waiter of [...waiters]) {
        clearTimeout(waiter.timer);
        waiters.delete(waiter);
        waiter.reject(new Error(`no line matching ${waiter.re}: ${reason}`));
      }
    },
  };
}
