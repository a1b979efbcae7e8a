// A Workflows instance status — as the binding (Workers) and the REST API (Node) both word it —
// as the run status the gateway's run recovery decides on. One table for both halves.

import type { RunStatus } from '@sluice/contracts';

export function workflowsRunStatus(status: unknown): RunStatus {
  switch (status) {
    case 'queued':
    case 'running':
    case 'waiting':
    case 'paused':
    case 'errored':
    case 'terminated':
    case 'complete':
      return status;
    // Pausing: the operator's, like paused.
    case 'waitingForPause':
      return 'paused';
    default:
      return 'unknown';
  }
}
