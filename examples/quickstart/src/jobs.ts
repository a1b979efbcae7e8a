// The demo's job registry: imported as a type by the client, as a value by the gateway and worker.
import { defineJob, defineJobs } from '@sluice/contracts';
import { z } from 'zod';

export const summarize = defineJob({
  kind: 'demo.summarize',
  versions: { current: 'v1' },
  input: z.object({ text: z.string().trim().min(1).max(100_000) }),
  output: z.object({ summary: z.string(), words: z.number().int().nonnegative() }),
  progress: z.object({
    done: z.number().int(),
    total: z.number().int(),
    sentence: z.string().max(200),
  }),
});

export const jobs = defineJobs(summarize);
export type Jobs = typeof jobs;
