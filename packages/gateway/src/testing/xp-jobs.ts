// The job the cross-process tests run: the same `xp.work` v1 that the worker's test children
// (the worker's `testing/worker-child.ts`, a runtime package's own child) serve, declared here for the gateway
// side (the gateway never imports the worker; both follow the same declaration).

import { defineJob, defineJobs } from '@sluice/contracts';
import { z } from 'zod';

export const xpJobs = defineJobs(
  defineJob({
    kind: 'xp.work',
    versions: { current: 'v1' },
    input: z.object({ n: z.number().int() }),
    output: z.object({ n: z.number().int(), by: z.string() }),
    progress: z.object({ step: z.number(), by: z.string() }),
  }),
);
export type XpJobs = typeof xpJobs;
