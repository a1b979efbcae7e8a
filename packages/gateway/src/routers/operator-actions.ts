// `jobs.requeue` and `jobs.rerun` (scope `jobs:manage`): one job at a time; bulk operations over
// a filter use the same action (operator/job-actions.ts). Spread into the jobs router.

import { OperatorActionResult, RequeueInput, RerunInput } from '@sluice/contracts';
import { runJobAction } from '../operator/run-action.js';
import type { Procedures } from '../trpc/procedures.js';
import type { RouterDeps } from './deps.js';

export function createOperatorActionProcedures(p: Procedures, deps: RouterDeps) {
  const result = (r: Awaited<ReturnType<typeof runJobAction>>): OperatorActionResult => ({
    id: r.job.id,
    kind: r.job.kind,
    state: r.job.state,
    unitsDropped: r.unitsDropped,
  });
  return {
    // A failed or dead-lettered job back in the queue with a fresh attempt budget; its
    // checkpoints and ledger are kept, as for a dead-letter requeue.
    requeue: p
      .scoped('jobs:manage')
      .input(RequeueInput)
      .output(OperatorActionResult)
      .mutation(async ({ ctx, input }) =>
        result(await runJobAction(deps, ctx, input.id, { action: 'requeue', note: input.note })),
      ),

    // An ended job runs again under a new epoch: checkpoints reused (but `fromUnit`'s and the
    // later ones), the ledger whole — an answered call is never sent (or billed) again.
    rerun: p
      .scoped('jobs:manage')
      .input(RerunInput)
      .output(OperatorActionResult)
      .mutation(async ({ ctx, input }) =>
        result(
          await runJobAction(deps, ctx, input.id, {
            action: 'rerun',
            note: input.note,
            fromUnit: input.fromUnit,
          }),
        ),
      ),
  };
}
