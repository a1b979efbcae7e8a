// What the typed client offers: its options and every namespace's calls, typed from the job
// registry (`createSluiceClient<typeof jobs>()` builds it).

import type {
  FileView,
  JobRegistry,
  ChildView,
  HoldResult,
  JobView,
  SignalResult,
  ListResult,
  ReviewListResult,
  ScheduleListResult,
  ScheduleView,
  inferJobInput,
  inferJobKind,
  WhoAmI,
} from '@sluice/contracts/wire';
import type { ReconnectOptions } from './backoff.js';
import type { Download, DownloadOptions, SignedUrl } from './download.js';
import type { OperatorJobs } from './operator-client.js';
import type { AuditNamespace, BulkNamespace, KeysNamespace } from './operator-namespaces.js';
import type { ApiKey, EventSourceClass, WebSocketClass } from './transport.js';
import type {
  FeedEvent,
  JobHandle,
  ListOptions,
  PageOptions,
  RegistryEventName,
  RegistryEventPayload,
  ScheduleOptions,
  SignalOptions,
  SubmitOptions,
  UploadBody,
  UploadOptions,
  WatchAllOptions,
} from './types.js';

export interface SluiceClientOptions {
  /** The gateway's base URL, e.g. `http://localhost:3000` (relative URLs work in browsers). */
  url: string;
  /** Sent as `Authorization: Bearer …` over HTTP and as `connectionParams` on the WebSocket. */
  apiKey: ApiKey;
  /**
   * The WebSocket class for subscriptions. Default: the global one (browsers, Node 22+); pass
   * another, such as the `ws` package's, to use it instead.
   */
  WebSocket?: WebSocketClass | undefined;
  /**
   * How subscriptions travel: `'websocket'` (default) or `'sse'` (Server-Sent Events over HTTP;
   * the only way on the Workers gateway). With SSE, `onReconnect` never fires.
   */
  subscriptions?: 'websocket' | 'sse' | undefined;
  /**
   * The EventSource class for `subscriptions: 'sse'`: one that accepts `{ fetch }` in its options
   * (`import { EventSource } from 'eventsource'`), so the key goes in a header.
   */
  EventSource?: EventSourceClass | undefined;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Backoff of WebSocket reconnects and watch resubscriptions. */
  reconnect?: ReconnectOptions | undefined;
}

export interface SluiceClient<R extends JobRegistry> {
  /** Accepts a job; resolves once the gateway stored it (not when it finished). */
  submit<K extends inferJobKind<R>>(
    kind: K,
    input: inferJobInput<R[K]>,
    opts?: SubmitOptions,
  ): Promise<JobHandle<R[K]>>;
  /**
   * Rebuilds a handle from a stored id: typed when the kind is given, `unknown` output if not.
   * `batchIndex` (a batch submit's `handle.batchIndex`) makes `result()` resolve with that
   * submit's share again, e.g. after a page reload.
   */
  job<K extends inferJobKind<R>>(
    id: string,
    kind: K,
    opts?: { batchIndex?: number | undefined },
  ): JobHandle<R[K]>;
  job(id: string): JobHandle;
  /** Streams a file to the gateway; pass the returned id in `submit(…, { fileIds })`. */
  upload(body: UploadBody, opts?: UploadOptions): Promise<FileView>;
  /**
   * The tenant's live feed of events of every job (optionally only some kinds or states). It is
   * live from when iteration starts (a feed, not a log: after a reconnect it carries on live);
   * use a job's `watch()` for a complete history.
   */
  watchAll<K extends inferJobKind<R> = inferJobKind<R>>(
    opts?: WatchAllOptions<K>,
  ): AsyncIterableIterator<FeedEvent<R, K>>;
  jobs: OperatorJobs & {
    get(id: string): Promise<JobView>;
    list(opts?: ListOptions<R>): Promise<ListResult>;
    /** Sets or lifts a job's legal hold (a key with `jobs:manage` or `admin`). */
    hold(id: string, hold: boolean): Promise<HoldResult>;
    /**
     * Sends an event to a job that waits (or will wait) for it, typed from the registry: the
     * name is one some kind declares in `events`, the payload that event's schema input.
     */
    signal<E extends RegistryEventName<R>>(
      id: string,
      name: E,
      payload: RegistryEventPayload<R, E>,
      opts?: SignalOptions,
    ): Promise<SignalResult>;
    /** A job's children (`ctx.children.start`), oldest first. */
    children(id: string): Promise<ChildView[]>;
  };
  files: {
    get(id: string): Promise<FileView>;
    /** The newest files first (default limit 100). */
    list(opts?: { limit?: number | undefined }): Promise<{ items: FileView[] }>;
    delete(id: string): Promise<void>;
    /** Streams an uploaded file, whole or a byte range (`{ range: { offset, length } }`). */
    download(id: string, opts?: DownloadOptions): Promise<Download>;
    /** A short-lived link that works without the API key (default 300 s, max 3600). */
    signedUrl(id: string, opts?: { expiresInSeconds?: number | undefined }): Promise<SignedUrl>;
  };
  deadLetters: {
    list(opts?: PageOptions<R>): Promise<ListResult>;
    /**
     * Puts a dead-lettered job back in the queue with a fresh attempt budget. Give the kind to
     * get a typed handle.
     */
    requeue<K extends inferJobKind<R>>(id: string, kind: K): Promise<JobHandle<R[K]>>;
    requeue(id: string): Promise<JobHandle>;
  };
  review: {
    /**
     * Jobs parked in needs_review, each with its evidence under `review`: the reason, the unit
     * and provider its review named, and the calls in billing doubt an approval would authorise.
     */
    list(opts?: PageOptions<R>): Promise<ReviewListResult>;
    /**
     * Authorises one more call of each call left in billing doubt and requeues the job; the
     * handle carries `authorised`, how many. Refused (CONFLICT) when the review came from a call
     * refused before sending (fail-closed), which no approval can let through.
     */
    approve<K extends inferJobKind<R>>(
      id: string,
      note: string,
      kind: K,
    ): Promise<JobHandle<R[K]> & { authorised: number }>;
    approve(id: string, note: string): Promise<JobHandle & { authorised: number }>;
    /** Fails the job. */
    discard(id: string, note: string): Promise<JobView>;
  };
  /** Recurring jobs: one job of `kind` with `input` at every tick of a cron expression. */
  schedules: {
    create<K extends inferJobKind<R>>(
      kind: K,
      input: inferJobInput<R[K]>,
      opts: ScheduleOptions,
    ): Promise<ScheduleView>;
    get(id: string): Promise<ScheduleView>;
    list(opts?: { cursor?: string | null; limit?: number }): Promise<ScheduleListResult>;
    /** No tick fires while paused; none is owed on resume. */
    pause(id: string): Promise<ScheduleView>;
    resume(id: string): Promise<ScheduleView>;
    delete(id: string): Promise<void>;
  };
  /** Bulk operations over a filter: dry run, start, progress (scope `jobs:manage`). */
  bulk: BulkNamespace;
  /** The tenant's audit log: list and JSON-lines export (scope `jobs:manage`). */
  audit: AuditNamespace;
  /** The calling key: id, label, tenant, scopes and expiry (scope `jobs:read`). */
  auth: { whoami(): Promise<WhoAmI> };
  /** The tenant's API keys: list, create, revoke (scope `admin`). */
  keys: KeysNamespace;
  /**
   * Calls `listener` every time the WebSocket opens, the first time and after every reconnect:
   * a consumer of the live feed (which carries on live, it does not replay) re-reads what it
   * may have missed. Returns the unsubscribe function.
   */
  onReconnect(listener: () => void): () => void;
  /** Ends every watch and closes the WebSocket. */
  close(): Promise<void>;
}
