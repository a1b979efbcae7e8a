// The parts of the Workers platform the gateway touches, typed structurally: the package
// type-checks without the Workers globals, and tests hand in workerd's real objects. A runtime's
// own bindings (what it dispatches to, its queues) are typed in its package.

/** The `ctx` argument of a Worker's `fetch` and `scheduled`. */
export interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
}
