// The job definitions the Node-gateway end-to-end test shares between its Node gateway and its
// workerd Workflow (test/remote-worker.ts): the quickstart's demo.summarize, unchanged, and a job
// whose every unit makes one paid call through the guard (the fake provider in the test).
import { defineJob, defineJobs } from '@sluice/contracts';
import { summarize } from '@sluice/example-quickstart/jobs';
import { z } from 'zod';

export const paid = defineJob({
  kind: 'test.paid',
  versions: { current: 'v1' },
  input: z.object({
    providerUrl: z.string().max(200),
    units: z.number().int().min(1).max(20),
    /** How long the provider takes to answer each call. */
    delayMs: z.number().int().min(0).max(5000).optional(),
  }),
  output: z.object({ answers: z.array(z.string()) }),
  progress: z.object({ unit: z.string() }),
  providers: {
    complete: { provider: 'fake', modality: 'text', call: 'sync', idempotencyKey: 'none' },
  },
});

export const remoteJobs = defineJobs(summarize, paid);
