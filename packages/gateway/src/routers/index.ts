// The app router, built at runtime from the job registry: `jobs.submit`'s input is the
// discriminated union of every kind's input schema.

import type { JobRegistry } from '@sluice/contracts';
import type { Gatekeeper } from '../auth/gatekeeper.js';
import { createAuditRouter } from './audit.js';
import { createAuthRouter } from './auth.js';
import { createBulkRouter } from './bulk.js';
import { createProcedures, type RefuseProcedure } from '../trpc/procedures.js';
import { createDeadLettersRouter } from './dead-letters.js';
import type { RouterDeps } from './deps.js';
import { createFilesRouter } from './files.js';
import { createJobsRouter } from './jobs.js';
import { createKeysRouter } from './keys.js';
import { createReviewRouter } from './review.js';
import { createSchedulesRouter } from './schedules.js';

export function createAppRouter<R extends JobRegistry>(
  deps: RouterDeps<R>,
  gate: Gatekeeper,
  maxInputDepth: number,
  refuse?: RefuseProcedure,
) {
  const { dialect } = deps.database;
  const p = createProcedures(gate, maxInputDepth, refuse, (e) => dialect.isUnavailable(e));
  return p.router({
    jobs: createJobsRouter(p, deps),
    files: createFilesRouter(p, deps),
    deadLetters: createDeadLettersRouter(p, deps as RouterDeps),
    review: createReviewRouter(p, deps as RouterDeps),
    schedules: createSchedulesRouter(p, deps),
    audit: createAuditRouter(p, deps as RouterDeps),
    bulk: createBulkRouter(p, deps as RouterDeps),
    auth: createAuthRouter(p, deps as RouterDeps),
    keys: createKeysRouter(p, deps as RouterDeps),
  });
}

/** The router's type for a registry: `createTRPCClient<AppRouter<typeof jobs>>`. */
export type AppRouter<R extends JobRegistry = JobRegistry> = ReturnType<typeof createAppRouter<R>>;
