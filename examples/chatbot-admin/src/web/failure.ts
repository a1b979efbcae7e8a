// Why a document did not finish, from the job's stored error: a code and a message a person can
// act on, and for a document whose units failed, each unit's own cause. The job id says none of
// that; this is what the list and the detail page show for a failed or dead-lettered document.
import type { JobError } from '@sluice/contracts/wire';

export interface Failure {
  /** A stable name: the Sluice error code, the error's class name, or the kind in capitals. */
  code: string;
  message: string;
  /** Each failed unit's cause (a `units_failed` error), else empty. */
  units: { unitKey: string; code: string; message: string }[];
}

export function codeOf(error: JobError): string {
  switch (error.kind) {
    case 'sluice':
      return error.code;
    case 'error':
      return error.name;
    case 'non_retriable':
    case 'retry_after':
    case 'needs_review':
    case 'units_failed':
    case 'unknown':
      return error.kind.toUpperCase();
  }
}

/** The failure to show, or undefined when there is nothing recorded to say. */
export function describeFailure(
  error: JobError | undefined,
  reason: string | undefined,
): Failure | undefined {
  if (!error) return reason ? { code: reason, message: reason, units: [] } : undefined;
  const units =
    error.kind === 'units_failed'
      ? error.causes.map((c) => ({
          unitKey: c.unitKey,
          code: codeOf(c.error),
          message: c.error.message,
        }))
      : [];
  return { code: codeOf(error), message: error.message, units };
}
