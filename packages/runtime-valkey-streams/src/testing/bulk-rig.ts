// What the bulk-operation tests on this runtime share: dead-lettered jobs seeded straight into the
// database (thousands in seconds, no worker needed), a tRPC client on a gateway's URL, and the
// count of requeues per job read from the events (the ground truth for "moved exactly once").

import { formatJobId } from '@sluice/contracts';
import { eventsOfRow, insertJob, transitionJob, type SluiceDatabase } from '@sluice/storage';
import type { AppRouter } from '@sluice/gateway';
import type { XpJobs } from '@sluice/gateway/conformance';
import { createTRPCClient, httpBatchLink, type TRPCClient } from '@trpc/client';

export type BulkClient = TRPCClient<AppRouter<XpJobs>>;

export function bulkClient(url: string, key: string): BulkClient {
  return createTRPCClient<AppRouter<XpJobs>>({
    links: [httpBatchLink({ url: `${url}/trpc`, headers: { authorization: `Bearer ${key}` } })],
  });
}

/** `n` jobs of `kind` in tenant acme, dead-lettered (accepted → queued → dead_lettered). */
export async function seedDeadLettered(
  database: SluiceDatabase,
  n: number,
  kind: string,
): Promise<string[]> {
  const ids: string[] = [];
  for (let from = 0; from < n; from += 250) {
    await database.transaction(async (tx) => {
      for (let i = from; i < Math.min(n, from + 250); i++) {
        const id = formatJobId('v1');
        await insertJob(tx, {
          id,
          tenantId: 'acme',
          kind,
          version: 'v1',
          input: { i },
          inputHash: id,
          maxAttempts: 3,
        });
        const queued = await transitionJob(tx, { id, event: 'dispatch' });
        const dead = await transitionJob(tx, {
          id,
          event: 'dead_letter',
          reason: 'PROVIDER_OUTAGE',
          error: { kind: 'unknown', message: 'provider down' },
        });
        if (!queued.ok || !dead.ok) throw new Error(`cannot seed ${id}`);
        ids.push(id);
      }
    });
  }
  return ids;
}

/** How many times each job went dead_lettered → queued (a requeue), read from its events. */
export async function requeuesOf(
  database: SluiceDatabase,
  ids: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map(ids.map((id) => [id, 0]));
  for (let from = 0; from < ids.length; from += 500) {
    const rows = await database.db
      .selectFrom('job_events')
      .select(['job_id', 'payload', 'seq_end'])
      .where('job_id', 'in', ids.slice(from, from + 500))
      .execute();
    for (const row of rows) {
      for (const e of eventsOfRow(row.payload, row.seq_end)) {
        if ('to' in e && e.from === 'dead_lettered' && e.to === 'queued')
          counts.set(row.job_id, (counts.get(row.job_id) ?? 0) + 1);
      }
    }
  }
  return counts;
}
