// The one place that maps a finished job to its output or its typed error.

import type { JobError, JobResult } from '@sluice/contracts/wire';
import {
  JobCancelledError,
  JobDeadLetteredError,
  JobFailedError,
  JobNeedsReviewError,
  JobStaleError,
  type JobEndedDetails,
} from './errors.js';
import { SluiceApiError } from './errors.js';

/** The output of a succeeded job; throws the matching error for every other terminal state. */
export function settleResult(result: JobResult): unknown {
  const ended: JobEndedDetails = {
    jobId: result.id,
    state: result.state,
    reason: result.reason,
    error: result.error,
  };
  switch (result.state) {
    case 'succeeded':
      return result.output;
    case 'failed': {
      const error: JobError = result.error ?? {
        kind: 'unknown',
        message: result.reason ?? 'the job failed without a recorded error',
      };
      throw new JobFailedError({ ...ended, error });
    }
    case 'cancelled':
      throw new JobCancelledError(ended);
    case 'needs_review':
      throw new JobNeedsReviewError(ended);
    case 'dead_lettered':
      throw new JobDeadLetteredError(ended);
    case 'stale':
      throw new JobStaleError(ended);
    case 'accepted':
    case 'scheduled':
    case 'queued':
    case 'running':
    case 'waiting':
      throw new SluiceApiError(
        'INTERNAL',
        `job ${result.id} is still ${result.state}: it has no result yet`,
        0,
      );
  }
}
