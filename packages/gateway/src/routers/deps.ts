// What the routers need, built once by `createGateway`.

import type { HistogramView, JobRegistry } from '@sluice/contracts';
import type { BlobStore, SluiceDatabase } from '@sluice/storage/portable';
import type { Acceptor } from '../accept/accept.js';
import type { DispatchPath } from '../dispatch/dispatch.js';
import type { UrlSigner } from '../downloads/signed-urls.js';
import type { EventHub } from '../events/event-hub.js';
import type { GatewayHooks } from '../hooks.js';
import type { GatewayLogger } from '../observability/logger.js';
import type { WaitResumer } from '../waits/wait-resumer.js';

export interface RouterDeps<R extends JobRegistry = JobRegistry> {
  jobs: R;
  database: SluiceDatabase;
  blobs: BlobStore;
  hub: EventHub;
  accept: Acceptor;
  dispatch: DispatchPath;
  logger: GatewayLogger;
  /** Signs gateway download links when the blob store cannot presign. */
  signer: UrlSigner;
  /** Signals and tokens, where the runtime has `durableWaits` (absent: `jobs.signal` refuses). */
  waits?: WaitResumer | undefined;
  /** A schedule's next tick was set here: wakes the due-job scheduler by then. */
  onScheduleTick?: ((at: number) => void) | undefined;
  /**
   * Stops the run of a job just cancelled, for runtimes whose runs do not watch the job row
   * themselves (a push platform: terminate the run's instance). Absent: the worker sees the cancel.
   */
  stopRun?: ((job: { id: string; version: string }) => Promise<void>) | undefined;
  /** Wakes this gateway's bulk-operation runner (a start was stored); absent where none runs. */
  bulk?: { poke(): void } | undefined;
  /** The latency histograms of this gateway's metrics registry (`jobs.activity`); absent: none. */
  latency?: (() => Promise<HistogramView[]>) | undefined;
  /** Test seams of the operator actions (hooks.ts); absent: the real ones. */
  hooks?: Pick<GatewayHooks, 'onRerun' | 'at' | 'storeBulkProgress'> | undefined;
}
