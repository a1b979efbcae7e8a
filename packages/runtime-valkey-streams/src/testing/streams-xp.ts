// Shared pieces of the cross-process Streams tests: submitting `xp.work` jobs the way the gateway's
// accept path does (row, dispatch transition and outbox row in one transaction, XADD after the
// commit, then the outbox row goes), re-dispatching from the database what a Redis loss took
// (the gateway's reconciler does this in production), and recording the measured figures.

import { formatJobId, isTerminalState, type MessagePointer } from '@sluice/contracts';
import {
  addToOutbox,
  insertJob,
  isoIn,
  removeFromOutbox,
  transitionJob,
  type SluiceDatabase,
} from '@sluice/storage';

const OUTBOX_GRACE_MS = 2_000;

export async function submitXpStreamJobs(
  database: SluiceDatabase,
  dispatch: (pointers: readonly MessagePointer[]) => Promise<unknown>,
  count: number,
): Promise<string[]> {
  const pointers = Array.from({ length: count }, () => ({
    jobId: formatJobId('v1'),
    kind: 'xp.work',
    version: 'v1',
    tenantId: 'acme',
  }));
  await database.transaction(async (tx) => {
    for (const [n, p] of pointers.entries()) {
      await insertJob(tx, {
        id: p.jobId,
        tenantId: p.tenantId,
        kind: p.kind,
        version: p.version,
        input: { n },
        inputHash: `xp${n}`,
        maxAttempts: 5,
      });
      await transitionJob(tx, { id: p.jobId, event: 'dispatch' });
    }
    // Due after a grace, as the reconciler holds fresh accepts: the tests' outbox pump must not
    // XADD a job a second time between this commit and the dispatch below.
    await addToOutbox(
      tx,
      pointers.map((p) => p.jobId),
      isoIn(OUTBOX_GRACE_MS),
    );
  });
  await dispatch(pointers);
  await removeFromOutbox(
    database.db,
    pointers.map((p) => p.jobId),
  );
  return pointers.map((p) => p.jobId);
}

/** Every job that is not finished, dispatched again (what the reconciler does after a loss). */
export async function redispatchUnfinished(
  database: SluiceDatabase,
  dispatch: (pointers: readonly MessagePointer[]) => Promise<unknown>,
): Promise<number> {
  const rows = await database.db
    .selectFrom('jobs')
    .select(['id', 'kind', 'version', 'tenant_id', 'state'])
    .execute();
  const pointers = rows
    .filter((r) => !isTerminalState(r.state as never))
    .map((r) => ({ jobId: r.id, kind: r.kind, version: r.version, tenantId: r.tenant_id }));
  await dispatch(pointers);
  return pointers.length;
}

export { recordFigures, terminalEventCounts } from '@sluice/worker/conformance';
