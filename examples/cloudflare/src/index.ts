// The quickstart's `demo.summarize` on Cloudflare: ONE Worker that is both halves. The gateway
// (`createWorkersGateway`, with the Workflows runtime's Workers half `workflowsOnWorkers`)
// answers the typed client on `fetch`, and on its cron trigger re-dispatches owed jobs, recovers
// lost runs and removes ended jobs past their retention; the job runs as a Workflow instance of
// `SummarizeV1` (`createSluiceWorkflow`), with state in D1 and blobs in R2; dead letters arrive on
// the DLQ queue. The job definitions and handlers are the quickstart's, imported unchanged.
import { createWorkersGateway } from '@sluice/gateway/cloudflare';
import { createSluiceWorkflow } from '@sluice/runtime-cloudflare-workflows/worker';
import { workflowsOnWorkers } from '@sluice/runtime-cloudflare-workflows/workers';
import { handlers } from '@sluice/example-quickstart/handlers';
import { jobs } from '@sluice/example-quickstart/jobs';

/** v1 jobs run here (binding WF_V1). */
export const SummarizeV1 = createSluiceWorkflow({ jobs, handlers, version: 'v1' });
/**
 * The slot of the next version (binding WF_V2): when `demo.summarize` gains a `v2` handler and
 * `versions.next: 'v2'`, v2 jobs run here and never on v1's code. Today the quickstart has no v2
 * handler, so no v2 job is ever created.
 */
export const SummarizeV2 = createSluiceWorkflow({ jobs, handlers, version: 'v2' });

const gateway = createWorkersGateway({
  jobs,
  runtime: workflowsOnWorkers({ workflows: { v1: 'WF_V1', v2: 'WF_V2' } }),
});

interface QueueBatch {
  messages: { body: unknown; ack(): void }[];
}

export default {
  fetch: gateway.fetch,
  scheduled: gateway.scheduled,
  /** The dead-letter queue's consumer: log each one (it is also `dead_lettered` in D1). */
  async queue(batch: QueueBatch): Promise<void> {
    for (const m of batch.messages) {
      console.warn(JSON.stringify({ level: 'warn', msg: 'dead letter', ...(m.body as object) }));
      m.ack();
    }
  },
};
