// The audit log as callers see it: storage's rows as `AuditEntry`, and the query filter from the
// API's input (times normalised to stored UTC text).

import type { AuditEntry, AuditListInput } from '@sluice/contracts';
import type { AuditFilter, AuditRow } from '@sluice/storage/portable';

export function toAuditEntry(r: AuditRow): AuditEntry {
  return {
    id: r.id,
    at: r.at,
    keyId: r.keyId,
    keyLabel: r.keyLabel,
    action: r.action as AuditEntry['action'],
    target: r.target,
    note: r.note,
    details: r.details,
  };
}

const utc = (iso: string | undefined) =>
  iso === undefined ? undefined : new Date(iso).toISOString();

export function toAuditFilter(tenantId: string, input: AuditListInput): AuditFilter {
  return {
    tenantId,
    action: input.action,
    keyId: input.keyId,
    target: input.target,
    after: utc(input.after),
    before: utc(input.before),
  };
}
