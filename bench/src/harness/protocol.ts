// IPC messages between the parent and its forked children. Kept tiny: a progress message carries
// a running count, never one message per job, so IPC does not inflate the workers' CPU figures.
import type { HandlerSpec } from '../adapter.js';

/**
 * consumer/producer: queue runtimes (rows 1–5). service: a long-lived child the parent drives by
 * named calls (the gateway, the watcher clients, the event writer of rows 6–8).
 */
export type ChildRole = 'consumer' | 'producer' | 'service';

/** Sent in the BENCH_CHILD environment variable as JSON. */
export interface ChildSpec {
  role: ChildRole;
  module: string;
  config: Record<string, unknown>;
  concurrency: number;
  index: number;
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
  | { type: 'go' }
  | { type: 'open-loop'; spec: OpenLoopSpec }
  | { type: 'collect' }
  | { type: 'call'; id: number; method: string; args: unknown }
  | { type: 'stop' };

export type ChildMessage =
  | { type: 'ready'; info?: Record<string, unknown> }
  | { type: 'progress'; done: number; at: number }
  | { type: 'samples'; series: Record<string, number[]> }
  | { type: 'produced'; sent: number; lateMaxMs: number; firstAt: number; lastAt: number }
  | { type: 'reply'; id: number; ok: boolean; value?: unknown; error?: string }
  | { type: 'error'; message: string };
