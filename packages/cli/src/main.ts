// `main(argv)`: parse, run, and turn any failure into one line and a documented exit code.
// Importing this module runs nothing: the bin (and `run.ts`, which tests spawn) calls `main` once. A
// module that ran itself when "executed directly" ran twice when sluice.config.ts imported
// `@sluice/cli` (tsx loads the config's imports as a second module instance).

import { CommanderError } from 'commander';
import { EXIT_CODES, UsageError, formatCliError, type ExitCode } from './cli-errors.js';
import { processIo, type CliIo } from './cli-io.js';
import { launchedByNpm, watchLaunchers } from './launcher-watch.js';
import { createProgram, type ProgramHooks } from './program.js';

/**
 * Resolves on the first SIGTERM/SIGINT (or, under npm, once npm or its shell is gone:
 * launcher-watch.ts); a second signal exits at once.
 */
function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = () => {
      if (stopping) process.exit(EXIT_CODES.failure);
      stopping = true;
      resolve();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    // A launcher that dies is a first stop, never the "second signal": Ctrl-C reaches npm's
    // shell too, which dies of it while the drain that the same Ctrl-C began is running.
    if (launchedByNpm(process.env))
      watchLaunchers(() => {
        if (stopping) return;
        stopping = true;
        resolve();
      });
  });
}

function fromCommander(error: CommanderError): ExitCode | UsageError {
  switch (error.code) {
    case 'commander.helpDisplayed':
    case 'commander.version':
      return EXIT_CODES.ok;
    // `sluice` or `sluice keys` alone: commander printed the usage on stderr.
    case 'commander.help':
    case 'commander.executeSubCommandAsync':
      return EXIT_CODES.usage;
    default:
      return new UsageError(
        `${error.message.replace(/^error: /, '')} (see sluice --help or sluice <command> --help)`,
      );
  }
}

export async function main(
  argv: string[],
  io: CliIo = processIo(),
  hooks: ProgramHooks = { untilStopped: untilSignal },
): Promise<number> {
  let exitCode: ExitCode = EXIT_CODES.ok;
  const program = createProgram(io, hooks, (code) => (exitCode = code));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (caught) {
    const error = caught instanceof CommanderError ? fromCommander(caught) : caught;
    if (typeof error === 'number') return error;
    const { line, exitCode: code } = formatCliError(error);
    io.err(line);
    if (io.env.SLUICE_DEBUG && error instanceof Error && error.stack) io.err(error.stack);
    return code;
  }
}
