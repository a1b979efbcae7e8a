// The runtime interface: the gateway dispatches pointers through `RuntimeDispatcher`, the worker
// consumes deliveries through `RuntimeConsumer`. Adapters depend only on these types; the
// worker's runtime host owns the lifecycle around them (readiness, renewal timers, drain), and
// differences between runtimes are capability flags, never name checks.

import type { MessagePointer } from './message-pointer.js';
import type { JobEvent } from './events.js';

/** A committed status event as a runtime carries it to other processes (`carriesEvents`). */
export interface PublishedEvent {
  tenantId: string;
  kind: string;
  event: JobEvent;
}

export interface RuntimeCapabilities {
  /** `step(name, fn)` results are memoized by the platform (Workflows `step.do`); else the units table backs it. */
  readonly memoizesSteps: boolean;
  /** Deliveries abandoned by a dead consumer come back by themselves (lease expiry, XAUTOCLAIM). */
  readonly reclaimsAbandoned: boolean;
  /** The queue lives in the job database: dispatch joins the accept transaction, no outbox needed. */
  readonly dispatchesInTransaction: boolean;
  /** Status events cross processes through the runtime (an events stream); else the database tailer carries them. */
  readonly carriesEvents: boolean;
  /** A worker process pulls deliveries through `RuntimeConsumer`; false when the platform pushes (Workflows). */
  readonly pullsDeliveries: boolean;
  /**
   * A claim starts the job (the queue is the job table): a delivery arrives with its attempt
   * already `running` at a new epoch, and no separate start write is made.
   */
  readonly startsOnClaim: boolean;
  /**
   * Storing the outcome finishes the delivery (the queue is the job table): no ack, release or
   * dead-letter call follows a stored outcome.
   */
  readonly acksWithOutcome: boolean;
  /**
   * Jobs can be submitted for later (`runAt`/`delayMs`): they wait `scheduled` in the job
   * database and the gateway's due-job scheduler dispatches them when due. A runtime without it
   * refuses such a submit; it never runs the job early.
   */
  readonly delaysJobs: boolean;
  /**
   * With `delaysJobs`: the run itself waits for a delayed job's due time (a Workflow instance
   * sleeps until `runAt`), so the gateway dispatches a `scheduled` job at submit with its due
   * time and the run starts it from `scheduled`; the gateway's due-job scheduler leaves it alone.
   * Without it the due-job scheduler dispatches the job when due.
   */
  readonly delaysInRun: boolean;
  /**
   * Higher-priority jobs are handed out first (with aging, so a low one still runs). A runtime
   * without it refuses a job whose priority is not 0 rather than running it out of order.
   */
  readonly prioritizes: boolean;
  /**
   * Dequeue round-robins across tenants with queued work, within a priority level: one tenant's
   * backlog puts at most one job per turn ahead of another tenant's new job. Without it jobs are
   * handed out in arrival order per version (nothing is refused: every job still runs).
   */
  readonly fairAcrossTenants: boolean;
  /**
   * Start limits of a job kind (`defineJob({ limits })`: max running, starts per second, per
   * kind, tenant or API key) are enforced at attempt start with counters every worker shares. A
   * runtime without it refuses a submit of a kind that declares them rather than ignore them.
   */
  readonly limitsStarts: boolean;
  /**
   * Provider limits declared on a kind's provider calls (`ProviderCall.limits`: concurrent calls,
   * calls per second) are enforced by the worker's guard with counters every worker shares. A
   * runtime without it refuses a submit of a kind that declares them rather than ignore them.
   */
  readonly limitsProviders: boolean;
  /**
   * Flow control at submit (`debounce`, `singleton`, `batch`): the gateway folds, holds or
   * gathers submits under a per-key row lock and moves the due time of a `scheduled` job, which
   * the gateway's due-job scheduler honours. A runtime whose run waits for the due time itself
   * (`delaysInRun`) cannot see a due time moved after dispatch: it refuses these at submit.
   */
  readonly debouncesSubmits: boolean;
  /** At most one live job per singleton key (skip, queue, cancel-older); see `debouncesSubmits`. */
  readonly singletonKeys: boolean;
  /** Submits gathered into one run of a batch kind; see `debouncesSubmits`. */
  readonly batchesSubmits: boolean;
  /**
   * Durable waits (`ctx.waitForEvent`, `ctx.sleep`, approval tokens): the attempt suspends, the
   * job waits `waiting` holding nothing, and the gateway's due sweep or a signal queues it again
   * through the ordinary dispatch path. A runtime without it refuses a submit of a kind that
   * declares `events`, and a wait call fails with a typed error: never a silent busy wait.
   */
  readonly durableWaits: boolean;
  /**
   * Child jobs (`ctx.children.start`/`wait`): started in a transaction fenced by the parent's
   * epoch, waited for as a durable wait. Without it `ctx.children` fails with a typed error.
   */
  readonly childJobs: boolean;
  /**
   * A first delivery may start from the snapshot its pointer carries (`MessagePointer.snapshot`)
   * instead of reading the job row: the gateway puts the accepted row into the pointers it sends
   * at submit. Only for a transport outside the database that marks first deliveries (`fresh`).
   */
  readonly startsFromPointer: boolean;
}

export interface VersionKey {
  readonly kind: string;
  readonly version: string;
}

/** The gateway's half of a runtime. */
export interface RuntimeDispatcher<TTransaction = unknown> {
  readonly name: string;
  readonly capabilities: RuntimeCapabilities;
  /**
   * Hands pointers to the runtime. With `dispatchesInTransaction` it runs inside the accept
   * transaction (`tx` given); otherwise right after commit, and a failure leaves the outbox row
   * for the reconciler.
   */
  dispatch(pointers: readonly MessagePointer[], tx?: TTransaction): Promise<void>;
  /**
   * Versions of a kind that a live worker serves, or `undefined` when the runtime cannot tell
   * (then nothing is dead-lettered at dispatch; the worker decides after a grace period).
   */
  servedVersions?(kind: string): Promise<readonly string[] | undefined>;
  /**
   * A runtime that runs each job as one run it can be asked about (a Workflow instance): how
   * each run stands, for the gateway's run recovery (gateway `recoverLostRuns`), which
   * re-dispatches a job whose run died. Absent: the runtime recovers crashed workers itself
   * (lease and liveness) and the recovery never asks.
   */
  readonly runs?: RunInspector | undefined;
  close(): Promise<void>;
}

/**
 * How a job's run stands as its runtime reports it. `not_found`: no run of that job exists;
 * `unknown`: the runtime answered something else (left alone, asked again next pass).
 */
export const RUN_STATUSES = [
  'queued',
  'running',
  'waiting',
  'paused',
  'errored',
  'terminated',
  'complete',
  'not_found',
  'unknown',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The job a run belongs to (the run's id is the job id; the version picks its Workflow). */
export interface RunRef {
  readonly id: string;
  readonly version: string;
}

export interface RunInspector {
  /** The status of each job's run, by job id (one answer per job asked about). */
  inspect(jobs: readonly RunRef[]): Promise<ReadonlyMap<string, RunStatus>>;
  /**
   * Starts the job's existing run again from its beginning (its step results discarded): how a
   * run that errored, was terminated or died is re-dispatched when its id cannot be created twice.
   */
  restart(job: RunRef): Promise<void>;
}

export interface Delivery {
  /** Transport id: a stream entry id, a queue row's lease token. */
  readonly id: string;
  /** `null` when the transport lost the data (a trimmed stream entry): ack it; the reconciler re-dispatches. */
  readonly pointer: MessagePointer | null;
  /** How often the transport handed it out. Informational: attempts are counted in the database. */
  readonly transportDeliveries: number;
  /**
   * The transport handed this entry out for the first time, to any consumer (a read of new
   * entries: never a claim from another consumer, nor a re-read of this consumer's own pending
   * after a restart). Only such a delivery may start from the pointer's snapshot instead of the
   * row; absent means false.
   */
  readonly fresh?: boolean | undefined;
}

export type RenewOutcome = 'renewed' | 'lost';

/** One queue (a stream per kind and version) as the transport sees it, for `/metrics`. */
export interface RuntimeQueueStats {
  readonly kind: string;
  readonly version: string;
  /** Entries the transport keeps (stream length), finished or not. */
  readonly length: number;
  /** Delivered and not finished (the pending entries list). */
  readonly pending: number;
  /** Not delivered to any consumer yet; `null` when the transport cannot tell. */
  readonly lag: number | null;
  /** Age of the oldest unfinished delivery; `null` when nothing is pending. */
  readonly oldestPendingAgeMs: number | null;
  /** Highest transport delivery count among the oldest pending deliveries (a sample). */
  readonly maxDeliveries: number;
  /** Entries in the transport's dead-letter place. */
  readonly deadLetters: number;
  readonly consumers: readonly { name: string; pending: number; idleMs: number }[];
}

export interface RuntimeStats {
  readonly queues: readonly RuntimeQueueStats[];
  /** Counters of this consumer since it started (claims, dead letters, recoveries …). */
  readonly counters: Readonly<Record<string, number>>;
}

/** The worker's half of a runtime. One instance per worker process. */
export interface RuntimeConsumer<D extends Delivery = Delivery> {
  readonly name: string;
  readonly capabilities: RuntimeCapabilities;
  /** Idempotent setup (groups exist). Readiness waits for it; the host retries it after failure. */
  init(): Promise<void>;
  /**
   * Up to `max` deliveries: this consumer's own pending ones first after a restart, then idle
   * ones of dead consumers (bounded), then new ones. Waits at most the runtime's block time and
   * resolves `[]` when nothing came.
   */
  read(max: number, signal?: AbortSignal): Promise<D[]>;
  /** Keeps claims fresh, only where they are still this consumer's (owner-checked, atomic). */
  renew(deliveries: readonly D[]): Promise<RenewOutcome[]>;
  /** Finishes deliveries. Called only after their outcome is stored in the database. */
  ack(deliveries: readonly D[]): Promise<void>;
  /** Gives deliveries back unfinished (drain, retry after `delayMs`); another consumer may take them. */
  release(deliveries: readonly D[], delayMs?: number): Promise<void>;
  /** Moves a delivery to the transport's dead-letter place with its reason, and finishes it. */
  deadLetter(delivery: D, reason: string): Promise<void>;
  /**
   * With `carriesEvents`: hands status events (already committed to the database) to the other
   * processes. Best effort: a lost publish is repaired by watchers' database backfill.
   */
  publishEvents?(events: readonly PublishedEvent[]): Promise<void>;
  /** What the transport holds, for `/metrics` (stream length, pending, claims …). */
  stats?(): Promise<RuntimeStats>;
  /**
   * Where deliveries wait outside the database: the worker ids that hold some now. With
   * `takeOver`, the host asks which of them stopped beating (worker liveness) and hands them on.
   */
  holders?(): Promise<readonly string[]>;
  /**
   * Makes the deliveries these dead holders still hold readable by this consumer now, without
   * waiting for their claims to idle out. Their job rows are fenced as on any reclaim.
   */
  takeOver?(deadHolders: readonly string[]): Promise<void>;
  close(): Promise<void>;
}
