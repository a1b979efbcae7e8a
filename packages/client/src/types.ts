// The client's public types. Everything is derived from the job registry, imported as a type:
// the client never sees the gateway's router type, so product apps need no gateway code and
// nothing silently widens to `any` (a router type crossing package boundaries degrades to `any`
// wherever a declaration cannot name it).

import type {
  AnyJobDefinition,
  AssetView,
  BatchOptions,
  DebounceOptions,
  FileView,
  JobDefinition,
  JobEvent,
  JobRegistry,
  JobState,
  JobView,
  SingletonOptions,
  inferJobKind,
  inferJobOutput,
  inferJobProgress,
  inferJobEventName,
  inferJobEventPayload,
  ChildView,
  SignalResult,
} from '@sluice/contracts/wire';

import type { AssetRef, Download, DownloadOptions, SignedUrl } from './download.js';

/** A job whose kind is not known to the types: output and progress are `unknown`. */
export type UntypedJob = JobDefinition;

type ProgressEventBase = Extract<JobEvent, { type: 'progress' }>;

/** A progress event whose `data` has the job's declared progress type. */
export type JobProgressEvent<J extends AnyJobDefinition> = {
  [P in keyof ProgressEventBase]: P extends 'data' ? inferJobProgress<J> : ProgressEventBase[P];
};

/** One stored event of a job, as `watch()` yields it. */
export type JobWatchEvent<J extends AnyJobDefinition = UntypedJob> =
  Exclude<JobEvent, { type: 'progress' }> | JobProgressEvent<J>;

/** One item of the tenant-wide feed, typed by kind (narrow on `kind`). */
export type FeedEvent<R extends JobRegistry, K extends inferJobKind<R> = inferJobKind<R>> = {
  [P in K]: { kind: P; event: JobWatchEvent<R[P]> };
}[K];

/** `kind` is known on typed handles; a handle rebuilt from an id alone learns it from the server. */
export type HandleKind<J extends AnyJobDefinition> = string extends J['kind']
  ? string | undefined
  : J['kind'];

export interface WatchOptions {
  /** Ends the iteration (quietly) when aborted. */
  signal?: AbortSignal | undefined;
  /** Resume after this event sequence number (events with `seq <= after` are skipped). */
  after?: number | undefined;
}

export interface JobHandle<J extends AnyJobDefinition = UntypedJob> {
  readonly id: string;
  readonly kind: HandleKind<J>;
  /** True when `submit` found an earlier job with the same idempotency key. */
  readonly isDuplicate: boolean;
  /**
   * A debounced submit folded into a window's job: `id` is that job (trailing mode: it now runs
   * with this submit's input; leading mode: with the window's first).
   */
  readonly debounced: boolean;
  /** A singleton submit in `skip` mode found a live job of its key: `id` is that job. */
  readonly skipped: boolean;
  /**
   * A batch submit's position in the batch job `id`; `result()` resolves with this submit's
   * share, `output[batchIndex]` (`status()` and `watch()` show the whole batch job).
   */
  readonly batchIndex: number | undefined;
  status(opts?: { signal?: AbortSignal }): Promise<JobView>;
  /**
   * Waits for a terminal state, then resolves with the typed output, or rejects with
   * `JobFailedError`, `JobCancelledError`, `JobNeedsReviewError`, `JobDeadLetteredError` or
   * `JobStaleError` (guards: `isJobFailedError`, …).
   */
  result(opts?: { signal?: AbortSignal }): Promise<inferJobOutput<J>>;
  /**
   * Every stored event of the job in order, live. Reconnects with backoff and resumes after the
   * last event it yielded (no gap, no duplicate); ends after a terminal state event.
   */
  watch(opts?: WatchOptions): AsyncIterableIterator<JobWatchEvent<J>>;
  cancel(): Promise<{ id: string; state: JobState }>;
  /**
   * Sends an event the job waits for (`ctx.waitForEvent(name)`), its payload typed and checked by
   * the kind's `events[name]` schema. Kept when the job is not waiting yet; `signalId` makes a
   * retried send idempotent.
   */
  signal<E extends inferJobEventName<J>>(
    name: E,
    payload: inferJobEventPayload<J, E>,
    opts?: SignalOptions,
  ): Promise<SignalResult>;
  /** The child jobs it started (`ctx.children.start`), oldest first. */
  children(opts?: { signal?: AbortSignal }): Promise<ChildView[]>;
  /** The job's assets so far: its own (finalize) ones first, then each unit's, by name. */
  assets(opts?: { signal?: AbortSignal }): Promise<AssetView[]>;
  /** Streams one asset, whole or a byte range (`unit` for an asset a unit wrote). */
  download(name: string, opts?: DownloadOptions & AssetRef): Promise<Download>;
  /** A short-lived link to one asset that works without the API key (default 300 s, max 3600). */
  assetUrl(
    name: string,
    opts?: AssetRef & { expiresInSeconds?: number | undefined },
  ): Promise<SignedUrl>;
}

export interface SignalOptions {
  /** The same id sent twice stores the signal once (`isDuplicate: true` the second time). */
  signalId?: string | undefined;
}

/** Every event name some kind of the registry declares. */
export type RegistryEventName<R extends JobRegistry> = {
  [K in keyof R]: inferJobEventName<R[K]>;
}[keyof R];

/** The payload of event `E` (of whichever kinds declare it). */
export type RegistryEventPayload<R extends JobRegistry, E extends string> = {
  [K in keyof R]: E extends inferJobEventName<R[K]> ? inferJobEventPayload<R[K], E> : never;
}[keyof R];

export interface SubmitOptions {
  /** The same key (per tenant and kind) returns the same job, with `isDuplicate: true`. */
  idempotencyKey?: string | undefined;
  /** Uploaded files the job uses (from `client.upload`). */
  fileIds?: string[] | undefined;
  /**
   * Run not before this instant (a `Date`, or ISO 8601 with offset): the job waits `scheduled`
   * until then, cancellable. At most a year ahead; a past instant runs at once.
   */
  runAt?: Date | string | undefined;
  /** Run not before this many ms from acceptance (exclusive with `runAt`). */
  delayMs?: number | undefined;
  /**
   * -10…10, higher first (default: the kind's `priority`, else 0). A waiting job is raised one
   * level per aging period, so a low one still runs. Refused by runtimes that cannot order.
   */
  priority?: number | undefined;
  /** A legal hold from the start: retention never removes the job while it is set. */
  hold?: boolean | undefined;
  /**
   * Fold submits close together into one job (over the kind's declared `debounce`): `{ key,
   * delayMs, maxDelayMs, mode: 'leading' | 'trailing' }`. The handle of a folded submit is the
   * surviving job's, with `debounced: true`. Not with `idempotencyKey`, `runAt` or `delayMs`.
   */
  debounce?: DebounceOptions | undefined;
  /**
   * At most one live job per key (over the kind's declared `singleton`): `{ key, mode: 'skip' |
   * 'queue' | 'cancel-older' }`. `skip` answers the live job's handle with `skipped: true`.
   */
  singleton?: SingletonOptions | undefined;
  /** Overrides a batch kind's declared `{ key, maxSize, maxWaitMs }` (only batch kinds take it). */
  batch?: BatchOptions | undefined;
  /** Labels to find the job by (`jobs.search`): at most 20, each up to 64 of `A-Za-z0-9._:/=-`. */
  tags?: string[] | undefined;
  /** JSON values by key (at most 32 keys, 4 KiB as JSON): searchable by key and value. */
  metadata?: Record<string, unknown> | undefined;
  signal?: AbortSignal | undefined;
}

/** Cron, zone, name, missed-tick policy of a recurring schedule (the gateway's own type). */
export type { ScheduleOptions } from '@sluice/contracts/wire';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PageOptions<R extends JobRegistry> {
  kind?: inferJobKind<R> | undefined;
  cursor?: string | null | undefined;
  limit?: number | undefined;
}

export interface ListOptions<R extends JobRegistry> extends PageOptions<R> {
  state?: JobState | undefined;
}

export interface WatchAllOptions<K extends string> {
  kinds?: K[] | undefined;
  states?: JobState[] | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Called each time the gateway has the feed's subscription in place: when iteration starts and
   * again whenever it is opened anew (a dropped socket, a gateway restart). Every event committed
   * after this call reaches the feed, so a list read from here on misses nothing; events committed
   * just before it may still arrive, to be ignored by sequence number (`JobView.lastSeq`).
   */
  onStarted?: (() => void) | undefined;
}

/** Anything `upload` can send: a `File`/`Blob` in browsers, a stream in Node. */
export type UploadBody =
  Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Uint8Array | ArrayBuffer | string;

export interface UploadOptions {
  /** Defaults to a `File`'s name. */
  filename?: string | undefined;
  /** Defaults to a `Blob`'s type, else `application/octet-stream`. */
  contentType?: string | undefined;
  signal?: AbortSignal | undefined;
}

export type { FileView, JobView };
