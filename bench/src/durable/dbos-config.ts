// DBOS Transact 5 (durable workflows in PostgreSQL), what the parent and its children share.
export const DBOS_APP = 'sluice-bench';
export const DBOS_APP_VERSION = 'bench';
export const DBOS_QUEUE = 'bench';
export const DBOS_WORKFLOW = 'benchWorkflow';
export const DBOS_SCHEMA = 'dbos';
/**
 * The queue's dispatch poll. DBOS dispatches a queue by polling its system table; at the 1 s
 * default a queue starts at most workerConcurrency workflows per second, so its documented
 * throughput setting is a lower `minPollingIntervalMs`. 10 ms is what Absurd's idle poll gets too.
 */
export const DBOS_POLL_MS = 10;
/** DBOS's default system-database pool. */
export const DBOS_POOL_SIZE = 10;

export interface DbosChildConfig {
  url: string;
}

export function parseDbosConfig(config: Record<string, unknown>): DbosChildConfig {
  const { url } = config;
  if (typeof url !== 'string') throw new Error(`bad DBOS child config: ${JSON.stringify(config)}`);
  return { url };
}
