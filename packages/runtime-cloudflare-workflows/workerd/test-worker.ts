// The Worker of the workerd run: the test job's v1 and v2 Workflow classes (each counts its
// `run()` invocations in D1, so a replay is visible from outside the engine) and the DLQ
// consumer, which records every dead letter in D1.
import { createSluiceWorkflow } from '../src/worker.js';
import type { WorkflowEventLike, WorkflowStepLike } from '../src/platform.js';
import type { WorkflowRunResult } from '../src/worker/workflow-run.js';
import { bindings } from './bindings.js';
import { testHandler, testJob } from './test-job.js';

const jobs = { [testJob.kind]: testJob };

function workflowOf(version: string) {
  return createSluiceWorkflow({
    jobs,
    handlers: { [testJob.kind]: { [version]: testHandler(version) } },
    version,
    retry: { baseMs: 100, timeout: '60 seconds' },
  });
}

const V1 = workflowOf('v1');
const V2 = workflowOf('v2');

async function countRun(event: WorkflowEventLike): Promise<void> {
  await bindings.DB.prepare('insert into test_runs (instance_id, at) values (?, ?)')
    .bind(event.instanceId, new Date().toISOString())
    .run();
}

export class TestWorkflowV1 extends V1 {
  override async run(event: WorkflowEventLike, step: WorkflowStepLike): Promise<WorkflowRunResult> {
    await countRun(event);
    return super.run(event, step);
  }
}

export class TestWorkflowV2 extends V2 {
  override async run(event: WorkflowEventLike, step: WorkflowStepLike): Promise<WorkflowRunResult> {
    await countRun(event);
    return super.run(event, step);
  }
}

interface QueueBatch {
  messages: { body: unknown; ack(): void }[];
}

export default {
  fetch(): Response {
    return new Response('sluice worker test');
  },
  async queue(batch: QueueBatch): Promise<void> {
    for (const m of batch.messages) {
      await bindings.DB.prepare('insert into test_dlq (body) values (?)')
        .bind(JSON.stringify(m.body))
        .run();
      m.ack();
    }
  },
};
