// What a command may touch of its process: output, environment, working directory, terminal.
// Passed in (never read from globals inside commands) so tests run `main` in-process.

export interface CliIo {
  /** One line to stdout. */
  out(line: string): void;
  /** One line to stderr. */
  err(line: string): void;
  /** Raw stdout text (help, progress bar redraws). */
  write(text: string): void;
  /** Raw stderr text (commander's usage on a missing command). */
  writeErr(text: string): void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Whether stdout is a terminal: `jobs watch` draws a progress bar only there. */
  isTTY: boolean;
}

export function processIo(): CliIo {
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    write: (text) => process.stdout.write(text),
    writeErr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: process.stdout.isTTY === true,
  };
}
