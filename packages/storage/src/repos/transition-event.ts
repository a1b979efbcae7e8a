// Builds the event that records one transition. Every transition writes exactly one event; its
// type says what kind of stop it is (needs_review and dead_letter carry their reason).

import type { JobError, JobEvent, JobState } from '@sluice/contracts';

export interface TransitionDetails {
  reason?: string | null | undefined;
  detail?: string | undefined;
  error?: JobError | null | undefined;
  unitKey?: string | undefined;
  provider?: string | undefined;
}

export function transitionEvent(
  jobId: string,
  seq: number,
  at: string,
  from: JobState | null,
  to: JobState,
  attempt: number,
  d: TransitionDetails,
): JobEvent {
  // The common case (a plain state change) as one literal: this runs for every job's every
  // transition, and the spreads below showed in a busy worker's profile.
  if (to !== 'needs_review' && to !== 'dead_lettered' && !d.reason && !d.error)
    return { jobId, seq, at, from, to, attempt, type: 'state' };
  const base = { jobId, seq, at, from, to, attempt };
  const error = d.error ? { error: d.error } : {};
  if (to === 'needs_review') {
    return {
      ...base,
      type: 'needs_review',
      reason: d.reason ?? 'needs review',
      ...(d.unitKey ? { unitKey: d.unitKey } : {}),
      ...(d.provider ? { provider: d.provider } : {}),
      ...error,
    };
  }
  if (to === 'dead_lettered') {
    return {
      ...base,
      type: 'dead_letter',
      reason: d.reason ?? 'DEAD_LETTERED',
      ...(d.detail ? { detail: d.detail } : {}),
      ...error,
    };
  }
  return { ...base, type: 'state', ...(d.reason ? { reason: d.reason } : {}), ...error };
}
