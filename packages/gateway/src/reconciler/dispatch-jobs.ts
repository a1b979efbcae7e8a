// Hands jobs found in the database to the runtime again: accepted ones are moved to queued first
// (one bulk compare-and-set), then every job still accepted, queued or running goes out in one
// dispatch. Re-dispatching liberally is safe: a worker acks the entry of a finished job and leaves
// a running job with a live lease to its holder. Losing a job is not.

import type { MessagePointer, RuntimeDispatcher } from '@sluice/contracts';
import { transitionJobs, type Db, type SluiceDatabase, type StoredEvent } from '@sluice/storage';
import type { DispatchableJob } from '@sluice/storage';

const DISPATCHABLE = new Set(['accepted', 'queued', 'running']);

export async function dispatchJobs(
  database: SluiceDatabase,
  runtime: RuntimeDispatcher<Db>,
  jobs: readonly DispatchableJob[],
  onEvents: (events: StoredEvent[]) => void,
): Promise<number> {
  const accepted = jobs.filter((j) => j.state === 'accepted');
  if (accepted.length > 0) {
    const events = await database.transaction(async (tx) => {
      const moved = await transitionJobs(
        tx,
        accepted.map((j) => ({ id: j.id, event: 'dispatch' })),
      );
      return moved.flatMap((r) => (r.ok ? [r.event] : []));
    });
    onEvents(events);
  }
  const pointers: MessagePointer[] = jobs
    .filter((j) => DISPATCHABLE.has(j.state))
    .map((j) => ({
      jobId: j.id,
      kind: j.kind,
      version: j.version,
      tenantId: j.tenantId,
      priority: j.priority,
    }));
  await runtime.dispatch(pointers);
  return pointers.length;
}
