// What the bulk-operation tests on this runtime share: dead-lettered jobs seeded straight into the
// database (thousands in seconds, no worker needed), a tRPC client on a gateway's URL, and the
// count of requeues per job read from the events (the ground truth for "moved exactly once").

import { formatJobId, type MessagePointer } from '@sluice/contracts';
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

/**
 * `n` jobs of `kind` with `input`, queued and dispatched (the accept path's rows, then the XADD
 * after the commit), with their own attempt budget: an outage spends a small one quickly.
 */
export async function submitQueued(
  database: SluiceDatabase,
  dispatch: (pointers: readonly MessagePointer[]) => Promise<unknown>,
  o: { n: number; kind: string; input: unknown; maxAttempts: number },
): Promise<string[]> {
  const pointers: MessagePointer[] = Array.from({ length: o.n }, () => ({
    jobId: formatJobId('v1'),
    kind: o.kind,
    version: 'v1',
    tenantId: 'acme',
  }));
  await database.transaction(async (tx) => {
    for (const p of pointers) {
      await insertJob(tx, {
        id: p.jobId,
        tenantId: p.tenantId,
        kind: p.kind,
        version: p.version,
        input: o.input,
        inputHash: p.jobId,
        maxAttempts: o.maxAttempts,
      });
      const queued = await transitionJob(tx, { id: p.jobId, event: 'dispatch' });
      if (!queued.ok) throw new Error(`cannot queue ${p.jobId}`);
    }
  });
  await dispatch(pointers);
  return pointers.map((p) => p.jobId);
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

/**
 * Per job, in event order: transitions whose `from` is not the previous `to` (a write that raced
 * past the state machine), and requeues (dead_lettered → queued).
 */
export async function transitionChains(
  database: SluiceDatabase,
  ids: readonly string[],
): Promise<Map<string, { broken: number; requeues: number }>> {
  const out = new Map(ids.map((id) => [id, { broken: 0, requeues: 0 }]));
  for (let from = 0; from < ids.length; from += 500) {
    const rows = await database.db
      .selectFrom('job_events')
      .select(['job_id', 'payload', 'seq_end', 'seq'])
      .where('job_id', 'in', ids.slice(from, from + 500))
      .orderBy('job_id')
      .orderBy('seq')
      .execute();
    const last = new Map<string, string>();
    for (const row of rows) {
      const chain = out.get(row.job_id);
      if (!chain) continue;
      for (const e of eventsOfRow(row.payload, row.seq_end)) {
        if (!('to' in e)) continue;
        const prev = last.get(row.job_id);
        if (prev !== undefined && e.from !== prev) chain.broken++;
        if (e.from === 'dead_lettered' && e.to === 'queued') chain.requeues++;
        last.set(row.job_id, e.to);
      }
    }
  }
  return out;
}
