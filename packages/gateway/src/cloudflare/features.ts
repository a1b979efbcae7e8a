// What the Workers gateway serves, as flags (docs/runtimes.md lists the same), and the
// procedures it refuses because it cannot honour them here. A refusal is a typed BAD_REQUEST
// naming the missing feature, after admission and before any read or write.
//
// Submits that need a capability the runtime lacks (a non-zero priority, a debounce) are refused
// by the accept path itself, from the runtime's capabilities.

import { SluiceError } from '@sluice/contracts';

export const WORKERS_GATEWAY_FEATURES = Object.freeze({
  /** tRPC queries and mutations over HTTP (`/trpc`). */
  http: true,
  /** Subscriptions over SSE (httpSubscriptionLink), polling D1. */
  sse: true,
  /** Subscriptions over WebSocket: no (`node:http` upgrade). Use SSE. */
  websocket: false,
  /** `POST /v1/uploads`: no (the Node gateway streams to local disk or S3). */
  uploads: false,
  /** Gateway-signed download links and `/v1/downloads`: no (no signing secret store). */
  downloads: false,
  /** `/metrics`: no (prom-client needs Node). Use Workers analytics. */
  metrics: false,
  /** Recurring schedules: no due-job scheduler runs on Workers yet. */
  schedules: false,
  /**
   * Dead-letter requeue, review approve/discard, requeue, rerun, bulk operations and API-key
   * create/revoke (key and audit row commit together): they need an interactive transaction (and bulk operations a background runner). Search, detail and
   * the audit log's reads are served.
   */
  operatorActions: false,
  /** Expired-upload and orphan sweepers: nothing to sweep without uploads. */
  sweepers: false,
  /** Signals, approval tokens and child jobs: no wait resumer runs here (`durableWaits`). */
  durableWaits: false,
});

export type WorkersGatewayFeature = keyof typeof WORKERS_GATEWAY_FEATURES;

const REFUSED: Readonly<Record<string, WorkersGatewayFeature>> = {
  'deadLetters.requeue': 'operatorActions',
  'review.approve': 'operatorActions',
  'review.discard': 'operatorActions',
  'jobs.requeue': 'operatorActions',
  'jobs.rerun': 'operatorActions',
  'bulk.preview': 'operatorActions',
  'bulk.start': 'operatorActions',
  'keys.create': 'operatorActions',
  'keys.revoke': 'operatorActions',
  'schedules.create': 'schedules',
  'schedules.resume': 'schedules',
  'files.signedUrl': 'downloads',
  'jobs.assetUrl': 'downloads',
  'jobs.signal': 'durableWaits',
};

/** The typed refusal of a procedure this gateway cannot honour, or undefined. */
export function refusedOnWorkers(path: string, has: { blobs: boolean }): SluiceError | undefined {
  const feature = Object.hasOwn(REFUSED, path)
    ? REFUSED[path]
    : path === 'files.delete' && !has.blobs
      ? 'uploads'
      : undefined;
  if (!feature) return undefined;
  return new SluiceError('BAD_REQUEST', `the Workers gateway does not serve ${path}`, {
    details: { feature },
  });
}
