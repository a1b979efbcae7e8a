// One log line per job state change the gateway stores (accepted → queued or dead-lettered at
// submit, cancelled), in the shape the worker writes its own (contracts `jobStateFields`).

import { jobStateFields } from '@sluice/contracts';
import type { StoredEvent } from '@sluice/storage/portable';
import type { GatewayLogger } from './logger.js';

export function logJobStates(
  logger: GatewayLogger | undefined,
  events: readonly StoredEvent[],
  job: { version?: string; attempts?: number; traceContext?: string | null },
): void {
  if (!logger?.info || logger.isLevelEnabled?.('info') === false) return;
  for (const stored of events) {
    const e = stored.event;
    if (e.type === 'state') logger.info('job state', jobStateFields(e, stored.kind, job));
  }
}
