// A submit the runtime could not honour is refused before anything is written, never accepted
// and silently ignored: each check names the capability flag it needs (the runtime's flags, not
// its name), and the refusal says which, so a client can tell a wrong runtime from a bad input.

import {
  declaresProviderLimits,
  FLOW_CAPABILITY,
  limitsAnything,
  SluiceError,
  type FlowPlan,
  type JobRegistry,
  type KindLimits,
  type RuntimeCapabilities,
} from '@sluice/contracts';

export interface SubmitNeeds {
  kind: string;
  def: JobRegistry[string];
  /** The due time of a delayed submit. */
  due: number | undefined;
  priority: number;
  /** The kind's start limits (the deployment's override, else its declaration). */
  limits: KindLimits[string] | undefined;
}

function refuse(
  capability: keyof RuntimeCapabilities,
  message: string,
  details: Record<string, unknown>,
): never {
  throw new SluiceError('BAD_REQUEST', message, { details: { capability, ...details } });
}

export function refuseWhatTheRuntimeCannot(caps: RuntimeCapabilities, n: SubmitNeeds): void {
  const { kind } = n;
  if (n.due !== undefined && !caps.delaysJobs)
    refuse('delaysJobs', 'this runtime cannot delay jobs (runAt/delayMs)', {});
  if (n.priority !== 0 && !caps.prioritizes)
    refuse('prioritizes', 'this runtime cannot order jobs by priority', { priority: n.priority });
  if (limitsAnything(n.limits) && !caps.limitsStarts)
    refuse('limitsStarts', 'this runtime cannot enforce the start limits of this kind', { kind });
  // A kind that waits for events would never be woken on a runtime that cannot suspend it.
  if (Object.keys(n.def.events ?? {}).length > 0 && !caps.durableWaits)
    refuse('durableWaits', 'this runtime cannot suspend jobs on durable waits', { kind });
  if (declaresProviderLimits(n.def.providers) && !caps.limitsProviders)
    refuse('limitsProviders', 'this runtime cannot enforce the provider limits of this kind', {
      kind,
    });
}

/** Flow control is resolved after the checks above (its own option errors come after them). */
export function refuseFlowTheRuntimeCannot(
  caps: RuntimeCapabilities,
  kind: string,
  plan: FlowPlan | undefined,
): void {
  if (plan && !caps[FLOW_CAPABILITY[plan.flow]])
    refuse(FLOW_CAPABILITY[plan.flow], `this runtime cannot honour ${plan.flow}`, {
      field: plan.flow,
      kind,
    });
}
