// What a runtime package's test entry exports for the paid worker child (paid-worker-child.ts,
// `RUNTIME_MODULE=<path>`): its consumer factory, built from the child's environment.
import type { RuntimeConsumerFactory } from '@sluice/contracts';

/** `env(name, fallback?)` reads the child's environment and throws when a required one is unset. */
export type PaidChildRuntime = (
  env: (name: string, fallback?: string) => string,
) => RuntimeConsumerFactory;
