// The job state changes the gateway stores (accepted → queued or dead-lettered at submit,
// cancelled, requeued by an operator) go to the shared job state log (contracts
// job-state-log.ts): a `debug` line per change in the shape the worker writes its own, and one
// `info` summary per 10 s. One log per logger object, so a gateway needs no handle to it.

import { createJobStateLog, type JobStateLog, type LoggedEvent } from '@sluice/contracts';
import type { GatewayLogger } from './logger.js';

const logs = new WeakMap<GatewayLogger, JobStateLog>();

export function logJobStates(
  logger: GatewayLogger | undefined,
  events: readonly LoggedEvent[],
  job: { version?: string; attempts?: number; traceContext?: string | null },
): void {
  if (!logger) return;
  let log = logs.get(logger);
  if (!log) logs.set(logger, (log = createJobStateLog(logger)));
  log.log(events, () => job);
}

/** Writes the summary of changes not summarised yet (the gateway's close). */
export function flushJobStates(logger: GatewayLogger | undefined): void {
  if (logger) logs.get(logger)?.close();
}
