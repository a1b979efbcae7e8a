// The operator plane's write side: requeue and rerun of one job, bulk operations over a filter,
// and the audit log that records every one of them. Shared by the gateway and the typed client.

import { z } from 'zod';
import { JobIdInput, UnitKey } from './api.js';
import { JobFilter } from './operator-api.js';
import { JOB_STATES } from './state-machine.js';

const state = z.enum(JOB_STATES);
const note = z.string().min(1).max(2000);

/** `jobs.requeue`: a failed or dead-lettered job back in the queue with a fresh attempt budget. */
export const RequeueInput = z.object({ id: JobIdInput, note: note.optional() }).strict();
/**
 * `jobs.rerun`: a succeeded, failed or dead-lettered job runs again under a new epoch. Every unit
 * checkpoint is reused except, with `fromUnit`, that unit's and those stored after it; the
 * provider-call ledger is kept whole, so a call that was answered is answered from it again.
 */
export const RerunInput = z
  .object({ id: JobIdInput, fromUnit: UnitKey.optional(), note: note.optional() })
  .strict();
export const OperatorActionResult = z.object({
  id: z.string(),
  kind: z.string(),
  state,
  /** Unit checkpoints a rerun dropped (those units run again); 0 for a requeue. */
  unitsDropped: z.number().int(),
});
export type OperatorActionResult = z.infer<typeof OperatorActionResult>;

export const BULK_ACTIONS = ['cancel', 'requeue', 'rerun', 'approve', 'discard'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** What a bulk action reads: the filter, and the note approvals and discards require. */
export const BulkPreviewInput = z
  .object({ action: z.enum(BULK_ACTIONS), filter: JobFilter })
  .strict();
export const BulkPreview = z.object({
  action: z.enum(BULK_ACTIONS),
  /** Jobs the filter matches that the action can move now (counted up to `cap`). */
  count: z.number().int(),
  cap: z.number().int(),
});
export type BulkPreview = z.infer<typeof BulkPreview>;
export const BulkStartInput = z
  .object({
    action: z.enum(BULK_ACTIONS),
    filter: JobFilter,
    /** The same key (per tenant) answers the same operation: a repeated start starts nothing. */
    operationKey: z.string().min(1).max(200),
    /** Required for approve and discard; recorded in the audit log for every action. */
    note: note.optional(),
    /** For `rerun`: the unit to run again from (see `jobs.rerun`). */
    fromUnit: UnitKey.optional(),
  })
  .strict()
  .refine((v) => v.note !== undefined || (v.action !== 'approve' && v.action !== 'discard'), {
    message: 'a note is required to approve or discard',
    path: ['note'],
  });
export const BULK_STATES = ['running', 'succeeded', 'failed'] as const;
export const BulkOperationView = z.object({
  id: z.string(),
  operationKey: z.string(),
  action: z.enum(BULK_ACTIONS),
  filter: JobFilter,
  note: z.string().nullable(),
  state: z.enum(BULK_STATES),
  /** The dry-run count when it started (jobs created later are never touched). */
  total: z.number().int(),
  processed: z.number().int(),
  /** Jobs the action moved. */
  applied: z.number().int(),
  /** Jobs it found but could not move (they moved meanwhile, or were not in a state it moves). */
  skipped: z.number().int(),
  failed: z.number().int(),
  error: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
  /** A start that found the operation already there (same key): nothing new was started. */
  isDuplicate: z.boolean().optional(),
});
export type BulkOperationView = z.infer<typeof BulkOperationView>;
export const BulkGetInput = z.object({ id: z.string().min(1).max(100) }).strict();
export const BulkListInput = z
  .object({ limit: z.number().int().min(1).max(100).default(20) })
  .strict();
export const BulkListResult = z.object({ items: z.array(BulkOperationView) });
export type BulkListResult = z.infer<typeof BulkListResult>;

export const AUDIT_ACTIONS = [
  'review.approve',
  'review.discard',
  'job.requeue',
  'job.rerun',
  'job.cancel',
  'job.hold',
  'bulk.start',
  'key.create',
  'key.revoke',
  'schedule.create',
  'schedule.pause',
  'schedule.resume',
  'schedule.delete',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export const AuditEntry = z.object({
  id: z.string(),
  at: z.string(),
  /** Who: the API key id and its label (null: the CLI on the database, or a key since deleted). */
  keyId: z.string().nullable(),
  keyLabel: z.string().nullable(),
  action: z.enum(AUDIT_ACTIONS),
  /** What: a job id, key id, schedule id or bulk operation id. */
  target: z.string().nullable(),
  /** Why: the operator's note (required for approvals). */
  note: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntry = z.infer<typeof AuditEntry>;
const isoTime = z.iso.datetime({ offset: true });
export const AuditListInput = z
  .object({
    action: z.enum(AUDIT_ACTIONS).optional(),
    keyId: z.string().max(100).optional(),
    target: z.string().max(200).optional(),
    after: isoTime.optional(),
    before: isoTime.optional(),
    cursor: z.string().max(300).nullish(),
    limit: z.number().int().min(1).max(1000).default(100),
  })
  .strict();
export type AuditListInput = z.input<typeof AuditListInput>;
export const AuditListResult = z.object({
  items: z.array(AuditEntry),
  nextCursor: z.string().nullable(),
});
export type AuditListResult = z.infer<typeof AuditListResult>;
