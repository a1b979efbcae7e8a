// Submits test jobs the way an accept path does, with storage functions only (the worker never
// imports the gateway): the job rows and their dispatch transitions in one transaction with what
// hands them on — the embedded queue's rows (`submitXpJobs`), or, for a runtime whose dispatch
// half is the gateway's, outbox rows, the dispatch after the commit, then the outbox rows go
// (`submitThroughOutbox`, `submitXpDispatchedJobs`). `redispatchUnfinished` is what the
// gateway's reconciler does after a broker lost what it held.
import { formatJobId, isTerminalState, type MessagePointer } from '@sluice/contracts';
import {
  addToOutbox,
  enqueue,
  insertJob,
  isoIn,
  listEvents,
  removeFromOutbox,
  transitionJob,
  type Db,
  type SluiceDatabase,
} from '@sluice/storage';
import { sleep } from '@sluice/testkit';
import type { Dispatch } from './outbox-pump.js';

/** The jobs to submit: `count` of `kind` (version v1, tenant acme), the n-th with `input(n)`. */
export interface XpBatch {
  kind: string;
  count: number;
  input: (n: number) => unknown;
  inputHash: (n: number, jobId: string) => string;
}

const XP_WORK = (count: number): XpBatch => ({
  kind: 'xp.work',
  count,
  input: (n) => ({ n }),
  inputHash: (n) => `xp${n}`,
});

/** Inserts the batch's rows, dispatched, inside `tx`; `handOn` adds what carries them on. */
async function insertDispatched(
  tx: Db,
  batch: XpBatch,
  handOn: (pointers: readonly MessagePointer[]) => Promise<unknown>,
): Promise<MessagePointer[]> {
  const pointers = Array.from({ length: batch.count }, () => ({
    jobId: formatJobId('v1'),
    kind: batch.kind,
    version: 'v1',
    tenantId: 'acme',
  }));
  for (const [n, p] of pointers.entries()) {
    await insertJob(tx, {
      id: p.jobId,
      tenantId: p.tenantId,
      kind: p.kind,
      version: p.version,
      input: batch.input(n),
      inputHash: batch.inputHash(n, p.jobId),
      maxAttempts: 5,
    });
    await transitionJob(tx, { id: p.jobId, event: 'dispatch' });
  }
  await handOn(pointers);
  return pointers;
}

/** `xp.work` jobs on the embedded queue (row, dispatch, queue row in one transaction). */
export async function submitXpJobs(database: SluiceDatabase, count: number): Promise<string[]> {
  const pointers = await database.transaction((tx) =>
    insertDispatched(tx, XP_WORK(count), (p) => enqueue(tx, p)),
  );
  return pointers.map((p) => p.jobId);
}

const OUTBOX_GRACE_MS = 2_000;

/**
 * The batch through the outbox: rows and outbox rows in one transaction, the dispatch after the
 * commit, then the outbox rows go. With `giveUpAfterMs` a dispatch that fails or hangs (the
 * broker down or blackholed) is given up and its outbox rows stay for the pump after the grace;
 * without it a failed dispatch throws.
 */
export async function submitThroughOutbox(
  database: SluiceDatabase,
  dispatch: Dispatch,
  batch: XpBatch,
  opts: { giveUpAfterMs?: number } = {},
): Promise<string[]> {
  // Due after a grace, as the reconciler holds fresh accepts: the tests' outbox pump must not
  // dispatch a job a second time between this commit and the dispatch below.
  const pointers = await database.transaction((tx) =>
    insertDispatched(tx, batch, (p) =>
      addToOutbox(
        tx,
        p.map((x) => x.jobId),
        isoIn(OUTBOX_GRACE_MS),
      ),
    ),
  );
  const ids = pointers.map((p) => p.jobId);
  const sent =
    opts.giveUpAfterMs === undefined
      ? await dispatch(pointers).then(() => true)
      : await Promise.race([
          dispatch(pointers).then(
            () => true,
            () => false,
          ),
          sleep(opts.giveUpAfterMs).then(() => false),
        ]);
  if (sent) await removeFromOutbox(database.db, ids);
  return ids;
}

/** `xp.work` jobs through the outbox and `dispatch` (a failed dispatch throws). */
export function submitXpDispatchedJobs(
  database: SluiceDatabase,
  dispatch: Dispatch,
  count: number,
): Promise<string[]> {
  return submitThroughOutbox(database, dispatch, XP_WORK(count));
}

/** Every job that is not finished, dispatched again (what the reconciler does after a loss). */
export async function redispatchUnfinished(
  database: SluiceDatabase,
  dispatch: Dispatch,
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

/** Terminal state events per job: exactly one each when nothing ran twice. */
export async function terminalEventCounts(
  database: SluiceDatabase,
  ids: readonly string[],
): Promise<number[]> {
  const out: number[] = [];
  for (const id of ids) {
    const events = await listEvents(database.db, id);
    out.push(events.filter((e) => e.type === 'state' && isTerminalState(e.to)).length);
  }
  return out;
}
