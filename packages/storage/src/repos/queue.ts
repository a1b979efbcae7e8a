// The embedded runtime's lease queue, in the job database. A claim is one statement
// (`UPDATE … RETURNING`; on PostgreSQL the candidates are picked `FOR UPDATE SKIP LOCKED`), so it
// is safe across processes. Every claim bumps the lease token; renew, ack and release name the
// token, so a holder whose lease was taken can no longer touch the row.

import type { MessagePointer, VersionKey } from '@sluice/contracts';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db } from '../database.js';
import { isPostgres } from '../dialect.js';
import { isoIn, isoNow } from '../json.js';
import type { Database } from '../schema.js';

export interface QueueClaim {
  pointer: MessagePointer;
  token: number;
  deliveries: number;
}

export interface QueueLease {
  jobId: string;
  token: number;
}

export interface ClaimOptions {
  versions: readonly VersionKey[];
  owner: string;
  leaseMs: number;
  limit: number;
  /** Also take back leases this owner still holds (its own pending work after a restart). */
  includeOwn?: boolean;
  now?: number;
}

export async function enqueue(
  tx: Db,
  pointers: readonly MessagePointer[],
  availableAt?: string,
): Promise<void> {
  if (pointers.length === 0) return;
  const at = isoNow();
  await tx
    .insertInto('queue')
    .values(
      pointers.map((p) => ({
        job_id: p.jobId,
        tenant_id: p.tenantId,
        kind: p.kind,
        version: p.version,
        available_at: availableAt ?? at,
        lease_owner: null,
        lease_token: 0,
        lease_expires_at: null,
        deliveries: 0,
        created_at: at,
      })),
    )
    .onConflict((oc) =>
      oc.column('job_id').doUpdateSet((eb) => ({
        available_at: eb.ref('excluded.available_at'),
        lease_owner: null,
        lease_expires_at: null,
      })),
    )
    .execute();
}

function versionFilter(
  eb: ExpressionBuilder<Database, 'queue'>,
  versions: readonly VersionKey[],
): Expression<SqlBool> {
  return eb.or(
    versions.map((v) => eb.and([eb('kind', '=', v.kind), eb('version', '=', v.version)])),
  );
}

export async function claim(db: Db, opts: ClaimOptions): Promise<QueueClaim[]> {
  if (opts.versions.length === 0 || opts.limit <= 0) return [];
  const now = opts.now ?? Date.now();
  const nowIso = isoNow(now);
  let candidates = db
    .selectFrom('queue')
    .select('job_id')
    .where((eb) => versionFilter(eb, opts.versions))
    .where('available_at', '<=', nowIso)
    .where((eb) =>
      eb.or([
        eb('lease_expires_at', 'is', null),
        eb('lease_expires_at', '<=', nowIso),
        ...(opts.includeOwn ? [eb('lease_owner', '=', opts.owner)] : []),
      ]),
    )
    .orderBy('available_at')
    .limit(opts.limit);
  // A restarted owner's own pending work comes first, then the oldest.
  if (opts.includeOwn)
    candidates = candidates
      .clearOrderBy()
      .orderBy(sql`case when lease_owner = ${opts.owner} then 0 else 1 end`)
      .orderBy('available_at');
  if (isPostgres(db)) candidates = candidates.forUpdate().skipLocked();
  const rows = await db
    .updateTable('queue')
    .set((eb) => ({
      lease_owner: opts.owner,
      lease_token: eb('lease_token', '+', 1),
      lease_expires_at: isoIn(opts.leaseMs, now),
      deliveries: eb('deliveries', '+', 1),
    }))
    .where('job_id', 'in', candidates)
    .returning(['job_id', 'tenant_id', 'kind', 'version', 'lease_token', 'deliveries'])
    .execute();
  return rows.map((r) => ({
    pointer: { jobId: r.job_id, tenantId: r.tenant_id, kind: r.kind, version: r.version },
    token: Number(r.lease_token),
    deliveries: Number(r.deliveries),
  }));
}

function leaseMatch(
  eb: ExpressionBuilder<Database, 'queue'>,
  leases: readonly QueueLease[],
): Expression<SqlBool> {
  return eb.or(
    leases.map((l) => eb.and([eb('job_id', '=', l.jobId), eb('lease_token', '=', l.token)])),
  );
}

/** Extends the leases still held under these tokens; returns the job ids that were renewed. */
export async function renew(
  db: Db,
  leases: readonly QueueLease[],
  owner: string,
  leaseMs: number,
  now = Date.now(),
): Promise<Set<string>> {
  if (leases.length === 0) return new Set();
  const rows = await db
    .updateTable('queue')
    .set({ lease_expires_at: isoIn(leaseMs, now) })
    .where((eb) => leaseMatch(eb, leases))
    .where('lease_owner', '=', owner)
    .returning('job_id')
    .execute();
  return new Set(rows.map((r) => r.job_id));
}

/** Removes finished rows, only under the holder's token. */
export async function ack(db: Db, leases: readonly QueueLease[]): Promise<number> {
  if (leases.length === 0) return 0;
  const r = await db
    .deleteFrom('queue')
    .where((eb) => leaseMatch(eb, leases))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Gives rows back unfinished; they become claimable after `delayMs`. */
export async function release(
  db: Db,
  leases: readonly QueueLease[],
  delayMs = 0,
  now = Date.now(),
): Promise<number> {
  if (leases.length === 0) return 0;
  const r = await db
    .updateTable('queue')
    .set({ lease_owner: null, lease_expires_at: null, available_at: isoIn(delayMs, now) })
    .where((eb) => leaseMatch(eb, leases))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function removeFromQueue(tx: Db, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await tx.deleteFrom('queue').where('job_id', 'in', jobIds).execute();
}

export interface QueueStats {
  depth: number;
  leased: number;
  /** Age in ms of the oldest row that is ready and not leased (0 when none). */
  oldestReadyAgeMs: number;
}

export async function queueStats(db: Db, now = Date.now()): Promise<QueueStats> {
  const nowIso = isoNow(now);
  const row = await db
    .selectFrom('queue')
    .select([
      sql<number>`count(*)`.as('depth'),
      sql<number>`sum(case when lease_expires_at is not null and lease_expires_at > ${nowIso} then 1 else 0 end)`.as(
        'leased',
      ),
      sql<
        string | null
      >`min(case when lease_expires_at is null or lease_expires_at <= ${nowIso} then available_at end)`.as(
        'oldest',
      ),
    ])
    .executeTakeFirstOrThrow();
  const oldest = row.oldest ? Date.parse(row.oldest) : undefined;
  return {
    depth: Number(row.depth ?? 0),
    leased: Number(row.leased ?? 0),
    oldestReadyAgeMs: oldest !== undefined && oldest < now ? now - oldest : 0,
  };
}
