// Dispatch to Workflows by the job id's version prefix: `v1-…` goes to the `v1` binding and
// nowhere else. A version with no binding is dead-lettered VERSION_NOT_ROUTABLE (the job row in
// D1 and a message on the DLQ queue) — never created on another version's Workflow, never left
// queued with nothing to run it.

import { MessagePointer, SluiceError } from '@sluice/contracts';
import type { SluiceDatabase } from '@sluice/storage/d1';
import type { QueueLike, WorkflowBindingLike } from '../platform.js';
import { deadLetter, type DeadLetterMessage } from './dead-letter.js';
import { d1JobStore } from './job-store.js';

export interface WorkflowRouterOptions {
  database: SluiceDatabase;
  /** version → its Workflow binding (`{ v1: env.WF_V1, v2: env.WF_V2 }`). */
  workflows: Readonly<Record<string, WorkflowBindingLike<MessagePointer> | undefined>>;
  deadLetters: QueueLike<DeadLetterMessage>;
}

export type DispatchResult =
  | { jobId: string; routed: true; version: string }
  | { jobId: string; routed: false; reason: 'VERSION_NOT_ROUTABLE' };

export interface WorkflowRouter {
  dispatch(pointer: unknown): Promise<DispatchResult>;
}

export function createWorkflowRouter(opts: WorkflowRouterOptions): WorkflowRouter {
  return {
    async dispatch(input) {
      const parsed = MessagePointer.safeParse(input);
      if (!parsed.success) {
        throw new SluiceError('BAD_REQUEST', `not a job pointer: ${parsed.error.message}`);
      }
      const pointer = parsed.data;
      const binding = Object.hasOwn(opts.workflows, pointer.version)
        ? opts.workflows[pointer.version]
        : undefined;
      if (!binding) {
        const served = Object.keys(opts.workflows).filter((v) => opts.workflows[v]);
        await deadLetter(
          { store: d1JobStore(opts.database), deadLetters: opts.deadLetters },
          pointer,
          'VERSION_NOT_ROUTABLE',
          `no Workflow binding serves ${pointer.version} (bound: ${served.join(', ') || 'none'})`,
        );
        return { jobId: pointer.jobId, routed: false, reason: 'VERSION_NOT_ROUTABLE' };
      }
      // Instance id = job id: a second create of the same job is the same instance. Production
      // rejects a duplicate id (the local engine silently accepts it): an instance that exists
      // means the job was dispatched already, and it is never created twice.
      try {
        await binding.create({ id: pointer.jobId, params: pointer });
      } catch (error) {
        const existing = await binding.get(pointer.jobId).catch(() => undefined);
        if (!existing) throw error;
      }
      return { jobId: pointer.jobId, routed: true, version: pointer.version };
    },
  };
}
