// The seam every benchmarked system implements. The harness owns processes, clocks, CPU accounting
// and rounds; an adapter only knows how to fill its queue, consume it in a child process and (for
// latency) add one job. Sluice's runtimes plug in here exactly like the anchors do.

export interface RedisService {
  url: string;
  host: string;
  port: number;
  pid: number;
}

export interface NatsService {
  url: string;
  host: string;
  port: number;
  pid: number;
}

/** Services the suite starts once and shares with every run (private redis-servers, fresh database). */
export interface BenchServices {
  /** redis-server without persistence (`--appendonly no --save ''`). */
  redis?: RedisService;
  /** A second redis-server, `--appendonly yes --appendfsync everysec` (BullMQ's durable setup). */
  redisAof?: RedisService;
  /**
   * The suite's database; `adminUrl` reaches the cluster's maintenance database, for what must
   * not run inside the bench database (the CPU and pg_stat_database samplers: their own
   * statements would count as the bench database's commits).
   */
  pg?: { url: string; name: string; adminUrl: string };
  /** nats-server `-js` with a file store in a temp directory (the NATS runtime's transport). */
  nats?: NatsService;
}

export type Need = 'redis' | 'redis-aof' | 'postgres' | 'nats';

/** What a job handler does once it has recorded its start. */
export type HandlerSpec = { kind: 'noop' } | { kind: 'sleep'; ms: number };

/** The payload every system carries: an index and a producer stamp (monotonic ms, 0 for prefill). */
export interface JobPayload {
  i: number;
  t: number;
}

export interface PrepareSpec {
  /** Jobs to enqueue before the clock starts (0 for latency runs). */
  jobs: number;
  /** Unique per run, for queue names and stream keys. */
  runId: string;
  /** The consumers this run will fork, for sizing pools. */
  processes: number;
  concurrency: number;
  /**
   * A fairness run: jobs reach the queue through the system's own dispatch path while it runs,
   * and dispatch → start is measured from the submit (the payload's `t`), not an entry stamp.
   */
  fairness?: boolean;
}

/** What `prepare` hands back: JSON config for the children plus parent-side hooks. */
export interface PreparedRun {
  /** Passed verbatim to every consumer and producer child (must be JSON-serialisable). */
  child: Record<string, unknown>;
  /**
   * Optional: called after the children reported N completions; resolves with the monotonic time
   * (ms) at which the work was durably done, when that is later than the last reported completion
   * (graphile-worker's batched completion commits after its `job:complete` event).
   */
  settle?(): Promise<number>;
  /**
   * Optional, untimed, after the clock stopped and the children ended the run: checks the end
   * state (Sluice: every job `succeeded` in the database, nothing pending in the stream group; a
   * run capped by the clock: at least the completed jobs `succeeded`, none failed). The result
   * goes into the run's `detail.verify`; `ok: false` is reported, not thrown.
   */
  verify?(expected: VerifyExpectation): Promise<{ ok: boolean } & Record<string, unknown>>;
  /**
   * Optional, untimed: called once the children are ready and before `go`. For a system whose
   * server pushes work to the workers (Restate), the workers' endpoint exists only now: register
   * it and fill the queue here (the children hold every delivery until `go`).
   */
  beforeGo?(): Promise<void>;
  /**
   * Processes of a server the system runs besides the database and Redis (restate-server): their
   * CPU is the `engine` group, and their disk writes (`/proc/<pid>/io` write_bytes) are reported
   * per job.
   */
  enginePids?: readonly number[];
  /** Untimed cleanup (drop keys, close the parent's connections). */
  cleanup(): Promise<void>;
}

/** What a run should have left: `jobs` submitted, of which the children reported `completed`. */
export interface VerifyExpectation {
  jobs: number;
  completed: number;
}

export interface QueueSystemAdapter {
  /** Untimed: fresh queue, `spec.jobs` jobs enqueued. */
  prepare(services: BenchServices, spec: PrepareSpec): Promise<PreparedRun>;
  /** URL of a module exporting `createConsumer: CreateConsumer` (loaded in a forked child). */
  consumerModule: string;
  /** URL of a module exporting `createProducer: CreateProducer`; needed for latency runs. */
  producerModule?: string;
  /** Processes whose CPU belongs to this system besides the children (default: the redis pid). */
  serverProcesses?: readonly ServerProcess[];
  /**
   * The harness reads the bench database's commits and row writes (`pg_stat_database`) and the
   * WAL position before `go` and after the run ended, for per-job cost figures. Set it only when
   * nothing but the measured work touches the bench database in that window (graphile-worker's
   * parent polls its jobs table to settle, so it does not).
   */
  databaseCost?: boolean;
  /** The system runs a server of its own (`PreparedRun.enginePids`): the report has its CPU column. */
  engineServer?: boolean;
  /**
   * Optional (the fairness row): after `prepare`, a parent-side writer that adds jobs of a named
   * tenant while the consumers run. Adapters without tenants leave it out.
   */
  tenantFeed?(services: BenchServices, prepared: PreparedRun): Promise<TenantFeed>;
}

/** Adds jobs of a tenant to a running queue (the fairness row, parent side). */
export interface TenantFeed {
  /** `count` jobs of `tenant` at once (payload `t` 0: not sampled), in bulk. */
  backlog(tenant: string, count: number, fromIndex: number): Promise<void>;
  /** One job of `tenant`, submitted as the accept path does; the harness stamps `job.t`. */
  submit(tenant: string, job: JobPayload): Promise<void>;
  /** Queued jobs of `tenant` not yet started. */
  queued(tenant: string): Promise<number>;
  close(): Promise<void>;
}

/** Server-side CPU the harness attributes to a system. */
export type ServerProcess = 'redis' | 'postgres-backends';

// ---- child side -------------------------------------------------------------------------------

export interface ChildInit {
  /** `PreparedRun.child` from the parent. */
  config: Record<string, unknown>;
  concurrency: number;
  /** 0-based index of this process among `processes`. */
  index: number;
}

export interface ConsumerHooks {
  /**
   * Call on the first line of the job handler and await it: records start latency, then runs the
   * workload's handler (no-op or sleep). `dispatchedAt` is the monotonic time of the transport
   * write when it differs from the producer's stamp (Sluice: the XADD after the accept commit).
   */
  handle(job: JobPayload, dispatchedAt?: number): Promise<void> | void;
  /** Call when `n` jobs are durably complete (BullMQ `completed`, confirmed XACK, …). */
  completed(n: number): void;
  /** Extra latency samples (ms) under a named series, e.g. 'commitToSubscriber'. */
  record(series: string, ms: number, job: JobPayload): void;
}

export interface Consumer {
  /** Start consuming; called when the parent says `go`, so connection setup stays untimed. */
  start(): void | Promise<void>;
  close(): Promise<void>;
}

export type CreateConsumer = (init: ChildInit, hooks: ConsumerHooks) => Promise<Consumer>;

export interface Producer {
  /** Enqueue one job; the harness stamps `job.t` just before calling it. */
  add(job: JobPayload): Promise<void>;
  close(): Promise<void>;
}

export type CreateProducer = (init: ChildInit) => Promise<Producer>;

// ---- gateway workloads (rows 6–8): slots for the gateway adapter ------------------------------

/** Every gateway figure may carry details for latest.json (machine-readable, not printed). */
interface WithDetail {
  detail?: Record<string, unknown>;
}
export interface SubmitSpec {
  connections: number;
  seconds: number;
}
export interface SubmitResult extends WithDetail {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}
export interface UploadSpec {
  bytes: number;
}
export interface UploadResult extends WithDetail {
  mibPerSec: number;
  peakRssGrowthMiB: number;
}
export interface WatchersSpec {
  subscribers: number;
  /** State events written, one per watched job (so `events` ≤ `subscribers`). */
  events: number;
}
export interface WatchersResult extends WithDetail {
  p50Ms: number;
  p99Ms: number;
  samples: number;
}

export interface GatewayAdapter {
  submit?(services: BenchServices, spec: SubmitSpec): Promise<SubmitResult>;
  upload?(services: BenchServices, spec: UploadSpec): Promise<UploadResult>;
  watchers?(services: BenchServices, spec: WatchersSpec): Promise<WatchersResult>;
}

// ---- the adapter ------------------------------------------------------------------------------

export interface BenchAdapter {
  /** Stable id used in scenarios and results: 'bullmq', 'raw-streams', 'sluice-streams', … */
  id: string;
  /** Human label for the table. */
  label: string;
  needs: readonly Need[];
  /** npm packages whose installed versions go into results (e.g. ['bullmq', 'iovalkey']). */
  packages: readonly string[];
  /** Set while the system cannot run; the report prints `n/a (<reason>)`. */
  unavailable?: string;
  /**
   * What the system keeps durable for one job and where, in a sentence (the report's table
   * beside row 11's measured row writes, so the comparison says what each figure buys).
   */
  durableWork?: string;
  queue?: QueueSystemAdapter;
  gateway?: GatewayAdapter;
  /** Called once at the end of the suite: stop anything kept across runs (idempotent). */
  dispose?(): Promise<void>;
}
