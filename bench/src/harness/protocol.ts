// IPC messages between the parent and its forked children. Kept tiny: a progress message carries
// a running count, never one message per job, so IPC does not inflate the workers' CPU figures.
import type { HandlerSpec } from '../adapter.js';

export type ChildRole = 'consumer' | 'producer';

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
  | { type: 'stop' };

export type ChildMessage =
  | { type: 'ready' }
  | { type: 'progress'; done: number; at: number }
  | { type: 'samples'; series: Record<string, number[]> }
  | { type: 'produced'; sent: number; lateMaxMs: number; firstAt: number; lastAt: number }
  | { type: 'error'; message: string };
