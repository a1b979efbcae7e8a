// IPC messages between the parent and its forked children. Kept tiny: a progress message carries
// a running count, never one message per job, so IPC does not inflate the workers' CPU figures.
import type { HandlerSpec } from '../adapter.js';
import type { StatementCounts } from './db-statements.js';

/** What one consumer or producer process did in one run (sent with `ended`). */
export interface RunReport {
  /** Consumer: jobs completed up to its close (after the clock, too). Producer: jobs added. */
  jobs: number;
  statements: StatementCounts;
}

/**
 * consumer/producer: queue runtimes (rows 1–5). service: a long-lived child the parent drives by
 * named calls (the gateway, the watcher clients, the event writer of rows 6–8).
 */
export type ChildRole = 'consumer' | 'producer' | 'service';

/**
 * Sent in the BENCH_CHILD environment variable as JSON: what the process is. A consumer or
 * producer process loads its module once and then serves one run per `init` … `end` (the same
 * process serves every round: module loading under tsx costs seconds, a run's setup does not).
 */
export interface ChildSpec {
  role: ChildRole;
  module: string;
  /** 0-based index among the run's processes (a Sluice worker's consumer name). */
  index: number;
  /** Service children only: their `createService` config. */
  config?: Record<string, unknown>;
}

/** One run's settings for a consumer or producer process (sent with `init`). */
export interface RunInit {
  config: Record<string, unknown>;
  concurrency: number;
  handler: HandlerSpec;
  /** Jobs with index below this are warm-up: not sampled for latency. */
  warmupJobs: number;
  /** Collect start-latency samples (latency runs only). */
  sample: boolean;
}

export interface OpenLoopSpec {
  rate: number;
  jobs: number;
}

export type ParentMessage =
  | { type: 'init'; run: RunInit }
  | { type: 'go' }
  | { type: 'open-loop'; spec: OpenLoopSpec }
  | { type: 'collect' }
  | { type: 'call'; id: number; method: string; args: unknown }
  /** Ends the current run (closes the consumer/producer) and keeps the process for the next. */
  | { type: 'end' }
  | { type: 'stop' };

export type ChildMessage =
  | { type: 'ready'; info?: Record<string, unknown> }
  /** A consumer/producer process has loaded its module and listens for `init`. */
  | { type: 'loaded' }
  /**
   * The run is closed. Consumers and producers add what they did from `go` (producer: from the
   * open loop's start) until their close: jobs completed (consumer) or added (producer), and the
   * statements they sent to a database (db-statements.ts), for the per-job cost figures.
   */
  | { type: 'ended'; report?: RunReport }
  | { type: 'progress'; done: number; at: number }
  | { type: 'samples'; series: Record<string, number[]> }
  | { type: 'produced'; sent: number; lateMaxMs: number; firstAt: number; lastAt: number }
  | { type: 'reply'; id: number; ok: boolean; value?: unknown; error?: string }
  | { type: 'error'; message: string };
