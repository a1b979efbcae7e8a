// The worker logs through this narrow shape (pino, console or a test spy all fit). The default
// writes warnings and errors as JSON lines to stderr; job errors are stored on the job, and a
// log line is never the only place an error goes.

export type LogFields = Record<string, unknown>;

export interface WorkerLogger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

function describe(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}

function line(level: string, message: string, fields: LogFields | undefined): string {
  const clean = fields
    ? Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, describe(v)]))
    : {};
  return `${JSON.stringify({ level, time: new Date().toISOString(), msg: message, ...clean })}\n`;
}

export function createStderrLogger(opts: { info?: boolean } = {}): WorkerLogger {
  return {
    info: (message, fields) => {
      if (opts.info) process.stderr.write(line('info', message, fields));
    },
    warn: (message, fields) => process.stderr.write(line('warn', message, fields)),
    error: (message, fields) => process.stderr.write(line('error', message, fields)),
  };
}

export const silentLogger: WorkerLogger = { info() {}, warn() {}, error() {} };
