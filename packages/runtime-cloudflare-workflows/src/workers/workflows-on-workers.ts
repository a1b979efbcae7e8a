// `workflowsOnWorkers({ workflows })`: the Cloudflare Workflows runtime's Workers half, what
// `createWorkersGateway({ runtime })` takes. It names the env bindings — a Workflow per job
// version and the dead-letter queue — and builds the binding dispatcher (workflows-dispatcher.ts)
// from each env the gateway serves. Options are checked when the Worker loads: a wrong one fails
// with INVALID_CONFIG naming the field, before any request is answered.
//
//   const gateway = createWorkersGateway({
//     jobs,
//     runtime: workflowsOnWorkers({ workflows: { v1: 'WF_V1', v2: 'WF_V2' } }),
//   });

import { SluiceError, type MessagePointer } from '@sluice/contracts';
import type { WorkersRuntime } from '@sluice/gateway/cloudflare';
import { z } from 'zod';
import type { QueueLike, WorkflowBindingLike } from '../platform.js';
import { createWorkflowsDispatcher } from './workflows-dispatcher.js';

export const WorkflowsOnWorkersOptions = z
  .object({
    /** version → the env binding name of its Workflow (`{ v1: 'WF_V1', v2: 'WF_V2' }`). */
    workflows: z
      .record(z.string().min(1), z.string().min(1))
      .refine((w) => Object.keys(w).length > 0, 'needs at least one version → Workflow binding'),
    /** The env binding name of the dead-letter queue (default `DLQ`; it may be absent). */
    deadLetters: z.string().min(1).default('DLQ'),
  })
  .strict();
export type WorkflowsOnWorkersOptions = z.input<typeof WorkflowsOnWorkersOptions>;

function parse(input: unknown) {
  const r = WorkflowsOnWorkersOptions.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue?.path.length ? issue.path.join('.') : 'options';
  throw new SluiceError('INVALID_CONFIG', `workflowsOnWorkers ${field}: ${issue?.message}`, {
    details: { runtime: 'cloudflare-workflows', field },
  });
}

export function workflowsOnWorkers(options: WorkflowsOnWorkersOptions): WorkersRuntime {
  const o = parse(options);
  const env = (e: object, name: string) => (e as Record<string, unknown>)[name];
  return {
    dispatcher(e, { database }) {
      const workflows: Record<string, WorkflowBindingLike<MessagePointer> | undefined> = {};
      for (const [version, name] of Object.entries(o.workflows)) {
        workflows[version] = env(e, name) as WorkflowBindingLike<MessagePointer> | undefined;
      }
      return createWorkflowsDispatcher({
        database,
        workflows,
        deadLetters: env(e, o.deadLetters) as QueueLike | undefined,
      });
    },
  };
}
