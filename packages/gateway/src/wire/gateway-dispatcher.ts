// The dispatcher both gateways take from a runtime, with the two optional duties a push runtime
// has beyond `RuntimeDispatcher`: stopping the run of a cancelled job (a run that does not watch
// its job row) and announcing a dead letter it did not write itself (one dead-lettered at submit
// or by run recovery) where its own dead letters go. Each is wired once (wire-gateway.ts), for
// Node and Workers alike, and only when the runtime has it.

import type { MessagePointer, RunRef, RuntimeDispatcher } from '@sluice/contracts';
import type { Db } from '@sluice/storage/portable';

/** A job that ended dead-lettered without its runtime's knowledge. */
export interface DeadLetterNotice {
  pointer: MessagePointer;
  /** `VERSION_NOT_ROUTABLE` at submit; `MAX_ATTEMPTS` from run recovery. */
  reason: 'VERSION_NOT_ROUTABLE' | 'MAX_ATTEMPTS';
  detail: string;
}

export interface GatewayDispatcher extends RuntimeDispatcher<Db> {
  /** Stops the run of a job just cancelled (a finished or missing run is left alone). */
  stopRun?(job: RunRef): Promise<void>;
  /** Announces a dead letter where the runtime's own go (a dead-letter queue). */
  announceDeadLetter?(dead: DeadLetterNotice): Promise<void>;
}
