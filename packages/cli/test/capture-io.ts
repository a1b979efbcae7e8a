// An in-memory CliIo: what `main` printed, split into lines, for in-process command tests.
import type { CliIo } from '../src/cli-io.js';

export interface CapturedIo extends CliIo {
  stdout: string[];
  stderr: string[];
  text(): string;
}

export function captureIo(
  opts: { env?: Record<string, string>; cwd?: string; isTTY?: boolean } = {},
): CapturedIo {
  let outText = '';
  let errText = '';
  const io: CapturedIo = {
    out: (l) => void (outText += `${l}\n`),
    err: (l) => void (errText += `${l}\n`),
    write: (t) => void (outText += t),
    writeErr: (t) => void (errText += t),
    env: opts.env ?? {},
    cwd: opts.cwd ?? process.cwd(),
    isTTY: opts.isTTY ?? false,
    get stdout() {
      return outText.split('\n').filter(Boolean);
    },
    get stderr() {
      return errText.split('\n').filter(Boolean);
    },
    text: () => outText,
  };
  return io;
}
