// The bindings the Workers gateway's Workflows half touches, typed structurally: the package
// type-checks without the Workers globals, and tests hand in workerd's real objects.

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
