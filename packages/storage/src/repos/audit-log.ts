// The audit log: every operator action with who (key id and label), when, what and why. Append
// only: this module inserts and reads; the table's trigger refuses every UPDATE, and every
// DELETE of a row newer than the last recorded prune horizon (`pruneAudit`), so no code path —
// a bug, a retention sweep — can rewrite or drop what an operator did. It is bounded by time
// through that prune, which leaves its own row in `audit_prunes`; never by the jobs it names.

import { randomToken } from '@sluice/contracts';
import { sql } from 'kysely';
import type { Db } from '../database.js';
import { fromJson, isoNow, toJson } from '../json.js';

export interface AuditRecord {
  tenantId: string;
  keyId: string | null;
  action: string;
  target: string | null;
  note: string | null;
  details?: Record<string, unknown> | undefined;
}

export interface AuditRow extends Omit<AuditRecord, 'details'> {
  id: string;
  at: string;
  keyLabel: string | null;
  details: Record<string, unknown>;
}

let counter = 0;
/** Ids sort in insertion order within a process (ms, then a counter): the listing's tiebreak. */
function auditId(now: number): string {
  counter = (counter + 1) % 36 ** 4;
  return `au_${now.toString(36).padStart(9, '0')}${counter.toString(36).padStart(4, '0')}${randomToken().slice(0, 8)}`;
}

/** Appends entries (in the caller's transaction, with the action they record). */
export async function appendAudit(
  db: Db,
  records: readonly AuditRecord[],
  now = Date.now(),
): Promise<void> {
  if (records.length === 0) return;
  const at = isoNow(now);
  // The key's label as it is now: a later relabel or deletion does not change who did it.
  const ids = [...new Set(records.flatMap((r) => (r.keyId ? [r.keyId] : [])))];
  const labels = new Map<string, string | null>();
  if (ids.length) {
    const keys = await db
      .selectFrom('api_keys')
      .select(['id', 'label'])
      .where('id', 'in', ids)
      .execute();
    for (const k of keys) labels.set(k.id, k.label);
  }
  await db
    .insertInto('audit_log')
    .values(
      records.map((r) => ({
        id: auditId(now),
        tenant_id: r.tenantId,
        at,
        key_id: r.keyId,
        key_label: r.keyId ? (labels.get(r.keyId) ?? null) : null,
        action: r.action,
        target: r.target,
        note: r.note,
        details: toJson(r.details ?? {}),
      })),
    )
    .execute();
}

export interface AuditFilter {
  tenantId: string;
  action?: string | undefined;
  keyId?: string | undefined;
  target?: string | undefined;
  after?: string | undefined;
  before?: string | undefined;
}

const encode = (r: { at: string; id: string }) => btoa(`${r.at}|${r.id}`);
function decode(cursor: string): { at: string; id: string } | undefined {
  try {
    const [at, id] = atob(cursor).split('|');
    return at && id ? { at, id } : undefined;
  } catch {
    return undefined;
  }
}

/** Newest first, one page; `nextCursor` continues. Reads `audit_log_tenant` backwards. */
export async function listAudit(
  db: Db,
  f: AuditFilter,
  page: { cursor?: string | null | undefined; limit: number },
): Promise<{ items: AuditRow[]; nextCursor: string | null }> {
  let q = db.selectFrom('audit_log').selectAll().where('tenant_id', '=', f.tenantId);
  if (f.action) q = q.where('action', '=', f.action);
  if (f.keyId) q = q.where('key_id', '=', f.keyId);
  if (f.target) q = q.where('target', '=', f.target);
  if (f.after) q = q.where('at', '>=', f.after);
  if (f.before) q = q.where('at', '<', f.before);
  const after = page.cursor ? decode(page.cursor) : undefined;
  if (after) {
    q = q.where((eb) =>
      eb.or([eb('at', '<', after.at), eb.and([eb('at', '=', after.at), eb('id', '<', after.id)])]),
    );
  }
  const rows = await q
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  const items = rows.slice(0, page.limit).map((r): AuditRow => ({
    id: r.id,
    at: r.at,
    tenantId: r.tenant_id,
    keyId: r.key_id,
    keyLabel: r.key_label,
    action: r.action,
    target: r.target,
    note: r.note,
    details: fromJson<Record<string, unknown>>(r.details) ?? {},
  }));
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > page.limit && last ? encode(last) : null };
}

/**
 * Moves the prune horizon to `before` (recorded with who did it) and deletes the rows older than
 * it. The horizon never goes back, and a horizon closer than a day to `now` is refused: the log
 * is pruned by age, never emptied.
 */
export async function pruneAudit(
  tx: Db,
  before: string,
  by: string,
  now = Date.now(),
): Promise<number> {
  if (Date.parse(before) > now - 86_400_000)
    throw new RangeError('the audit prune horizon must be at least a day old');
  await tx
    .insertInto('audit_prunes')
    .values({ before, at: isoNow(now), by })
    .execute();
  const r = await sql`delete from audit_log where at < ${before}`.execute(tx);
  return Number(r.numAffectedRows ?? 0);
}

/**
 * The retention sweeper's audit prune: moves the horizon to `now - keepMs` only when some row is
 * older than that, so a sweep every few minutes does not add a horizon row each time. Plain
 * statements, no transaction (D1 has none): the horizon is recorded before the delete, and a
 * delete that fails leaves rows the next pass removes, never a row the trigger wrongly allowed.
 */
export async function pruneAuditOlderThan(
  db: Db,
  keepMs: number,
  by: string,
  now = Date.now(),
): Promise<number> {
  const before = isoNow(now - keepMs);
  const older = await db
    .selectFrom('audit_log')
    .select('id')
    .where('at', '<', before)
    .limit(1)
    .executeTakeFirst();
  if (!older) return 0;
  return pruneAudit(db, before, by, now);
}
