// Inserts `xp.work` jobs the way the embedded accept path does (row, dispatch, queue row in one
// transaction), with storage functions only: the worker never imports the gateway.
import { formatJobId, isTerminalState } from '@sluice/contracts';
import {
  enqueue,
  insertJob,
  listEvents,
  transitionJob,
  type SluiceDatabase,
} from '@sluice/storage';

export async function submitXpJobs(database: SluiceDatabase, count: number): Promise<string[]> {
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
    await enqueue(tx, pointers);
  });
  return pointers.map((p) => p.jobId);
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
