// The parts of the Workers platform the Cloudflare runtime touches, typed structurally: the
// package type-checks without the Workers globals, and tests hand in workerd's real objects.
// One module for every half (the Workflow run in `worker/`, the Workers gateway's dispatcher in
// `workers/`): both hold the same bindings, so they must agree on one shape of each.

/** `step.do` config (the pinned runtime's shape). */
export interface WorkflowStepConfig {
  retries?: {
    limit: number;
    delay: number | string;
    backoff?: 'constant' | 'linear' | 'exponential';
  };
  timeout?: number | string;
}

/** What the engine tells a step callback (`attempt` is 1-based; verified on the pinned runtime). */
export interface WorkflowStepContext {
  readonly attempt?: number | undefined;
}

/** The `step` argument of `WorkflowEntrypoint.run`, as far as the runtime uses it. */
export interface WorkflowStepLike {
  do<T>(
    name: string,
    config: WorkflowStepConfig,
    callback: (ctx?: WorkflowStepContext) => Promise<T>,
  ): Promise<T>;
  /** A durable sleep: a replay after the time passed returns at once. */
  sleepUntil(name: string, timestamp: Date | number): Promise<void>;
}

/** The `event` argument of `WorkflowEntrypoint.run`. */
export interface WorkflowEventLike<P = unknown> {
  readonly payload: Readonly<P>;
  readonly instanceId: string;
}

/** A Workflow instance handle (`await env.WF_V1.get(id)`). */
export interface WorkflowInstanceLike {
  readonly id: string;
  status(): Promise<{ status: string }>;
  terminate(): Promise<void>;
  /** Runs the instance again from its first step (its step results discarded). */
  restart?(): Promise<void>;
}

/** A Workflow binding (`env.WF_V1`). */
export interface WorkflowBindingLike<P = unknown> {
  create(options: { id: string; params: P }): Promise<{ id: string }>;
  /** Up to 100 per call; production skips ids that already exist. */
  createBatch?(batch: { id: string; params: P }[]): Promise<unknown>;
  get(id: string): Promise<WorkflowInstanceLike>;
}

/** A Queue producer binding (the dead-letter queue). */
export interface QueueLike<B = unknown> {
  send(body: B): Promise<void>;
}
