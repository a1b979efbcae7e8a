// The worker logs through the narrow `SluiceLogger` shape of contracts (pino, console or a test
// spy all fit). The default is pino writing the shared JSON line shape to stderr at `LOG_LEVEL`
// (default info), with credentials, inputs and provider request bodies redacted. Job errors are
// stored on the job: a log line is never the only place an error goes.

import {
  loggerFromPino,
  parseLogLevel,
  sluiceLogOptions,
  type LogFields,
  type LogLevel,
  type SluiceLogger,
} from '@sluice/contracts';
import { pino, type DestinationStream } from 'pino';
import { createCoalescingDestination } from './log-destination.js';

export type { LogFields };
export type WorkerLogger = SluiceLogger;

export interface LoggerOptions {
  /** Default: `LOG_LEVEL`, else info. */
  level?: LogLevel | undefined;
  /** The `service` field of every line (default `worker`). */
  service?: string | undefined;
  /**
   * Where lines go (default: stderr, written synchronously once per turn of the event loop and on
   * exit, so a crash loses none: log-destination.ts).
   */
  destination?: DestinationStream | undefined;
}

export function createLogger(opts: LoggerOptions = {}): WorkerLogger {
  const options = sluiceLogOptions({
    service: opts.service ?? 'worker',
    level: opts.level ?? parseLogLevel(process.env.LOG_LEVEL),
  });
  return loggerFromPino(pino(options, opts.destination ?? createCoalescingDestination()));
}

/** The default worker logger (kept under its old name): pino to stderr at `LOG_LEVEL`. */
export function createStderrLogger(opts: { level?: LogLevel | undefined } = {}): WorkerLogger {
  return createLogger(opts);
}

export const silentLogger: WorkerLogger = {
  info() {},
  warn() {},
  error() {},
  isLevelEnabled: () => false,
};
