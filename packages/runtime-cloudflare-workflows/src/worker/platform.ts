// The parts of the Workers platform the Cloudflare runtime touches, typed structurally: the
// package type-checks without the Workers globals, and tests hand in workerd's real objects.

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

/** A Workflow binding (`env.WF_V1`). */
export interface WorkflowBindingLike<P = unknown> {
  create(options: { id: string; params: P }): Promise<{ id: string }>;
  get(id: string): Promise<{ id: string; status(): Promise<{ status: string }> }>;
}

/** A Queue producer binding (the dead-letter queue). */
export interface QueueLike<B = unknown> {
  send(body: B): Promise<void>;
}
