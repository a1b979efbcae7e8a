// Plays the worker's part with storage functions, so tests can move jobs without a worker. The
// gateway did not write these events, so they reach watchers only through the tailer.

import { appendAttemptEvents, transitionJob, type SluiceDatabase } from '@sluice/storage';

export async function startJob(database: SluiceDatabase, id: string): Promise<number> {
  const r = await database.transaction((tx) => transitionJob(tx, { id, event: 'start' }));
  if (!r.ok) throw new Error(`cannot start ${id}: ${r.job?.state}`);
  return r.job.epoch;
}

export async function reportProgress(
  database: SluiceDatabase,
  id: string,
  epoch: number,
  done: number,
): Promise<void> {
  const r = await database.transaction((tx) =>
    appendAttemptEvents(tx, id, epoch, [{ type: 'progress', data: { done } }]),
  );
  if (!r) throw new Error(`attempt ${epoch} of ${id} lost its job`);
}

export async function succeedJob(
  database: SluiceDatabase,
  id: string,
  epoch: number,
  output: unknown,
): Promise<void> {
  const r = await database.transaction((tx) =>
    transitionJob(tx, { id, event: 'succeed', epoch, output }),
  );
  if (!r.ok) throw new Error(`cannot succeed ${id}: ${r.job?.state}`);
}

export async function deadLetterJob(
  database: SluiceDatabase,
  id: string,
  reason = 'MAX_ATTEMPTS',
): Promise<void> {
  const r = await database.transaction((tx) =>
    transitionJob(tx, {
      id,
      event: 'dead_letter',
      reason,
      error: { kind: 'unknown', message: 'boom' },
    }),
  );
  if (!r.ok) throw new Error(`cannot dead-letter ${id}: ${r.job?.state}`);
}
