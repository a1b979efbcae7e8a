// tRPC's WebSocket client sends every request queued in one tick as one message, a JSON array,
// with no bound; the gateway refuses a message of more than MAX_BATCH_CALLS calls whole
// (BAD_REQUEST to every call in it). A burst of watches — a few hundred awaited results, or a
// reconnect that resubscribes them all — crosses that. This class sends such an array as several
// arrays the gateway accepts; every call is answered by its own id, so nothing else changes.

import { MAX_BATCH_CALLS } from '@sluice/contracts/wire';
import type { WebSocketClass } from './transport.js';

export function batchLimitedWebSocket(
  Base: WebSocketClass,
  maxCalls: number = MAX_BATCH_CALLS,
): WebSocketClass {
  return class BatchLimitedWebSocket extends Base {
    send(data: unknown): void {
      if (typeof data === 'string' && data.startsWith('[')) {
        const calls = JSON.parse(data) as unknown[];
        if (calls.length > maxCalls) {
          for (let i = 0; i < calls.length; i += maxCalls) {
            super.send(JSON.stringify(calls.slice(i, i + maxCalls)));
          }
          return;
        }
      }
      super.send(data);
    }
  };
}
