// pg-boss 12, what the parent and its children share: the schema and queue, and the worker's
// documented fast configuration for a no-op queue at concurrency c.
export const PGBOSS_SCHEMA = 'pgboss';
export const PGBOSS_QUEUE = 'bench';

export interface PgBossChildConfig {
  url: string;
  /** pg-boss's pool per process (its default, 10). */
  poolSize: number;
  /** `work()` fetch loops per process and jobs per fetch: localConcurrency × batchSize = c. */
  localConcurrency: number;
  batchSize: number;
}

export function parsePgBossConfig(config: Record<string, unknown>): PgBossChildConfig {
  const { url, poolSize, localConcurrency, batchSize } = config;
  if (
    typeof url !== 'string' ||
    typeof poolSize !== 'number' ||
    typeof localConcurrency !== 'number' ||
    typeof batchSize !== 'number'
  )
    throw new Error(`bad pg-boss child config: ${JSON.stringify(config)}`);
  return { url, poolSize, localConcurrency, batchSize };
}

/**
 * `work()` hands a batch of `batchSize` jobs to one handler call and completes the batch in one
 * statement; `localConcurrency` fetch loops run side by side. 4 loops of c/4 keep c jobs in flight
 * while one loop waits on its fetch or completion (one loop of 64 would stop fetching while its
 * batch completes).
 */
export function pgBossShape(concurrency: number): { localConcurrency: number; batchSize: number } {
  const localConcurrency = Math.min(4, concurrency);
  return { localConcurrency, batchSize: Math.max(1, Math.floor(concurrency / localConcurrency)) };
}
