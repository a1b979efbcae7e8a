// The narrow logger the gateway writes to: contracts' `SluiceLogger`, with `info` optional so a
// `{ warn() {}, error() {} }` still silences it. Default: pino writing the shared JSON line shape
// (the worker's too) to stderr at `LOG_LEVEL` (default info), secrets and inputs redacted.

import {
  loggerFromPino,
  parseLogLevel,
  sluiceLogOptions,
  type LogLevel,
  type SluiceLogger,
} from '@sluice/contracts';
import { pino, type DestinationStream } from 'pino';

export type GatewayLogger = Pick<SluiceLogger, 'warn' | 'error'> &
  Partial<Pick<SluiceLogger, 'debug' | 'info' | 'isLevelEnabled'>>;

export interface LoggerOptions {
  /** Default: `LOG_LEVEL`, else info. */
  level?: LogLevel | undefined;
  /** The `service` field of every line (default `gateway`). */
  service?: string | undefined;
  /** Where lines go (default: stderr, synchronously). */
  destination?: DestinationStream | undefined;
}

export function createLogger(opts: LoggerOptions = {}): SluiceLogger {
  const options = sluiceLogOptions({
    service: opts.service ?? 'gateway',
    level: opts.level ?? parseLogLevel(process.env.LOG_LEVEL),
  });
  return loggerFromPino(pino(options, opts.destination ?? pino.destination(2)));
}
