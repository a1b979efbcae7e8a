// Config the graphile-worker parent hands its children, and the logger both sides use.
import { Logger } from 'graphile-worker';

export interface GraphileConfig {
  url: string;
  /** Pool connections per process. */
  poolSize: number;
  localQueueSize: number;
}

export function parseGraphileConfig(config: Record<string, unknown>): GraphileConfig {
  const { url, poolSize, localQueueSize } = config;
  if (
    typeof url !== 'string' ||
    typeof poolSize !== 'number' ||
    typeof localQueueSize !== 'number'
  ) {
    throw new Error(`bad graphile-worker child config: ${JSON.stringify(config)}`);
  }
  return { url, poolSize, localQueueSize };
}

/** Warnings and errors only: per-job info lines would cost more than the jobs. */
export const quietLogger = new Logger(() => (level, message) => {
  if ((level as string) === 'error' || (level as string) === 'warning') {
    console.error(`graphile-worker ${level}: ${message}`);
  }
});
