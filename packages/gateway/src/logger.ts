// The narrow logger the gateway writes to. Default: warnings and errors to stderr as one JSON
// line each; pass `{ warn() {}, error() {} }` to silence it, or adapt pino/winston.

export interface GatewayLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

function describe(value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message } : value;
}

function write(level: string, message: string, fields?: Record<string, unknown>): void {
  const entries = Object.entries(fields ?? {}).map(([k, v]) => [k, describe(v)]);
  process.stderr.write(
    `${JSON.stringify({ level, at: new Date().toISOString(), msg: message, ...Object.fromEntries(entries) })}\n`,
  );
}

export const consoleLogger: GatewayLogger = {
  warn: (message, fields) => write('warn', message, fields),
  error: (message, fields) => write('error', message, fields),
};
