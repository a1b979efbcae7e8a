// What a runtime package's test entry (`RUNTIME_MODULE=<path>`) exports for the worker children:
// `paidChildRuntime` for the paid child (paid-worker-child.ts), `workerChildRuntime` for the
// `xp.work` child (worker-child.ts): its consumer factory, built from the child's environment,
// and the worker settings that runtime's tests rely on.
import type { RuntimeConsumerFactory } from '@sluice/contracts';
import type { CreateWorkerOptions } from '../create-worker.js';

/** `env(name, fallback?)` reads the child's environment and throws when a required one is unset. */
export type PaidChildRuntime = (
  env: (name: string, fallback?: string) => string,
) => RuntimeConsumerFactory;

/** The `xp.work` child's runtime, and worker settings of that runtime's tests. */
export type WorkerChildRuntime = (env: (name: string, fallback?: string) => string) => {
  consumer: RuntimeConsumerFactory;
  worker?: Partial<Pick<CreateWorkerOptions, 'retryBackoff' | 'unreadyAfterReadFailures'>>;
};
