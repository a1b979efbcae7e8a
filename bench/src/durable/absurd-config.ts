// Absurd (durable tasks in PostgreSQL, absurd-sdk 0.5), what the parent and its children share.
export const ABSURD_QUEUE = 'bench';
export const ABSURD_TASK = 'bench';
/** The SDK's default spawn options (`defaultMaxAttempts` 5), as `spawn()` sends them. */
export const ABSURD_SPAWN_OPTIONS = { max_attempts: 5 } as const;
/**
 * Seconds between polls while the queue is empty (the SDK's default is 0.25 s). Absurd has no
 * push path; 10 ms is what DBOS's queue gets here too, so the latency rows compare engines and not
 * default poll intervals. A full worker waits for a free slot, not for the poll.
 */
export const ABSURD_POLL_SECONDS = 0.01;

export interface AbsurdChildConfig {
  url: string;
  poolSize: number;
}

export function parseAbsurdConfig(config: Record<string, unknown>): AbsurdChildConfig {
  const { url, poolSize } = config;
  if (typeof url !== 'string' || typeof poolSize !== 'number')
    throw new Error(`bad Absurd child config: ${JSON.stringify(config)}`);
  return { url, poolSize };
}
