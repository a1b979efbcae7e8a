// `step(name, fn)`: the one checkpoint seam of the stage runner. Where the platform memoizes
// steps (`capabilities.memoizesSteps`, a push platform's durable step) the platform's step runs it; else a
// checkpoint store backs it (the units table) and, until one is given, `fn` simply runs. The
// runner reads the capability, never the runtime's name, so a new runtime needs no edit here.

import { SluiceError, type RuntimeCapabilities } from '@sluice/contracts';
import type { StepFn } from './define-handler.js';

/** A store of step results for runtimes that do not memoize (the units table). */
export interface CheckpointStore {
  run<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

export interface CreateStepOptions {
  capabilities: RuntimeCapabilities;
  /** The platform's memoizing step; required when `capabilities.memoizesSteps`. */
  platformStep?: StepFn | undefined;
  checkpoints?: CheckpointStore | undefined;
}

/** One step function per attempt. Names must be unique within it: they are checkpoint keys. */
export function createStep(opts: CreateStepOptions): StepFn {
  const seen = new Set<string>();
  let backend: <T>(name: string, fn: () => Promise<T>) => Promise<T>;
  if (opts.capabilities.memoizesSteps) {
    const platformStep = opts.platformStep;
    if (!platformStep) {
      throw new SluiceError(
        'INVALID_CONFIG',
        'the runtime memoizes steps but gave no step function',
      );
    }
    backend = (name, fn) => platformStep(name, fn);
  } else if (opts.checkpoints) {
    const checkpoints = opts.checkpoints;
    backend = (name, fn) => checkpoints.run(name, fn);
  } else {
    backend = (_name, fn) => fn();
  }
  return <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    if (typeof name !== 'string' || name.length === 0) {
      return Promise.reject(new SluiceError('BAD_REQUEST', 'step name must be a non-empty string'));
    }
    if (seen.has(name)) {
      return Promise.reject(
        new SluiceError(
          'BAD_REQUEST',
          `step "${name}" ran twice in one attempt: names are checkpoint keys`,
        ),
      );
    }
    seen.add(name);
    return backend(name, fn);
  };
}
