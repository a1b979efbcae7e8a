// The typed internal signal that unwinds a handler once its wait suspended the job. The wait's
// transaction already stored the suspend (job `waiting`, attempt refunded), so the host only
// lets the delivery go (outcome `suspended`). Never an error of the job: `decideOutcome` reads it
// before any error class. Job code that catches it by mistake changes nothing durable: the row
// is `waiting`, so every later write of this attempt fails its fence and lands nowhere.

export class AttemptSuspended extends Error {
  override readonly name = 'AttemptSuspended';
  /** Why the job waits: `event:<name>`, `sleep`, `children`. */
  readonly reason: string;
  constructor(reason: string) {
    super(`the job suspended (${reason}); it runs again once the wait ends`);
    this.reason = reason;
  }
}

/** By name as well as `instanceof`: errors cross realms (duplicate package copies, workerd). */
export function isAttemptSuspended(error: unknown): error is AttemptSuspended {
  return (
    error instanceof AttemptSuspended ||
    (typeof error === 'object' &&
      error !== null &&
      (error as { name?: unknown }).name === 'AttemptSuspended')
  );
}
