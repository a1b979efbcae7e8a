// The signed job store of a Workflow run dispatched by a Node gateway: the run reads its job row
// and writes its provider ledger through the gateway that accepted the job (that job has no D1
// row). Attempt writes (start, events, unit checkpoints, the terminal outcome) go through the
// state callback (`state-callback.ts`); everything else the run needs is one operation here,
// signed the same way (HMAC over `<timestamp>.<body>`, `signStateReport`). The gateway applies
// each with the repository functions every Node runtime uses, so the fence is the same one:
// a ledger row of a stale attempt is refused (409) and nothing is written.

import { z } from 'zod';
import { CALL_OUTCOMES, JOB_STATES, JobWaiting } from '@sluice/contracts';

/** Default path of the store route on the gateway. */
export const RUNTIME_STORE_PATH = '/v1/runtime/store';

const Id = z.string().min(1).max(100);
const Key = z.string().min(1).max(200);
const Iso = z.string().max(40);

/** The job row as a run reads it (storage `JobSnapshot`). */
export const JobSnapshotWire = z
  .object({
    id: Id,
    tenantId: Id,
    kind: Key,
    version: z.string().max(20),
    state: z.enum(JOB_STATES),
    input: z.unknown(),
    fileIds: z.array(z.string().max(100)),
    attempts: z.number().int().min(0),
    maxAttempts: z.number().int().min(1),
    epoch: z.number().int().min(0),
    lastSeq: z.number().int().min(0),
    attemptId: z.string().max(100).nullable(),
    runAfter: Iso.nullable(),
    leaseUntil: Iso.nullable(),
    leaseOwner: z.string().max(200).nullable(),
    createdAt: Iso,
    traceContext: z.string().max(200).nullable(),
    apiKeyId: z.string().max(100).nullable(),
    waiting: JobWaiting.nullable(),
  })
  .strict();
export type JobSnapshotWire = z.infer<typeof JobSnapshotWire>;

/**
 * `true` only when A and B name the same fields. The wire schemas are strict, so a field a stored
 * type gains and its wire lacks makes the other side refuse every message: pin the pair with
 * `const check: SameKeys<Stored, Wire> = true`, which stops compiling when they drift.
 */
export type SameKeys<A, B> = [keyof A] extends [keyof B]
  ? [keyof B] extends [keyof A]
    ? true
    : false
  : false;

const CALL_OUTCOME = z.enum(CALL_OUTCOMES);

/** One provider-ledger row (storage `LedgerRow`). */
export const LedgerRowWire = z
  .object({
    id: Id,
    jobId: Id,
    tenantId: Id,
    unitKey: Key,
    callName: Key,
    attemptId: z.string().max(100),
    epoch: z.number().int(),
    attempt: z.number().int(),
    stage: z.string().max(40),
    provider: Key,
    modality: Key,
    callClass: Key,
    requestKey: z.string().max(200).nullable(),
    externalId: z.string().max(1000).nullable(),
    outcome: CALL_OUTCOME,
    response: z.unknown(),
    error: z.unknown(),
    authorisedBy: z.string().max(200).nullable(),
    note: z.string().max(2000).nullable(),
    createdAt: Iso,
    updatedAt: Iso,
  })
  .strict();
export type LedgerRowWire = z.infer<typeof LedgerRowWire>;

/** Every operation names its job and tenant: the gateway answers only for that tenant's job. */
const Job = { jobId: Id, tenantId: Id };

export const RuntimeStoreRequest = z.discriminatedUnion('op', [
  /** The job row now (also the cancellation check: a cancelled row stops the run). */
  z.object({ op: z.literal('snapshot'), ...Job }).strict(),
  /** A unit's ledger in order (one declared call, or all of the unit's). */
  z.object({ op: z.literal('calls'), ...Job, unitKey: Key, callName: Key.optional() }).strict(),
  /** The ledger row of a call about to leave, fenced by epoch and `running`: 409 when stale. */
  z
    .object({
      op: z.literal('call_intent'),
      ...Job,
      unitKey: Key,
      callName: Key,
      attemptId: z.string().min(1).max(100),
      epoch: z.number().int().min(0),
      stage: z.string().max(40),
      provider: Key,
      modality: Key,
      callClass: Key,
      requestKey: z.string().max(200).nullable().optional(),
      outcome: z.enum(['pending', 'refused']).optional(),
      error: z.unknown().optional(),
    })
    .strict(),
  /** What happened to a call (not fenced: the ledger keeps the truth even from a zombie). */
  z
    .object({
      op: z.literal('call_outcome'),
      ...Job,
      unitKey: Key,
      rowId: Id,
      // A settled call: never `pending` (the intent) nor `authorised` (an operator's go-ahead).
      outcome: CALL_OUTCOME.exclude(['pending', 'authorised']),
      externalId: z.string().max(1000).nullable().optional(),
      response: z.unknown().optional(),
      error: z.unknown().optional(),
    })
    .strict(),
  /** A pollable call's external job id, before anything waits on it. */
  z
    .object({
      op: z.literal('external_id'),
      ...Job,
      unitKey: Key,
      rowId: Id,
      externalId: z.string().min(1).max(1000),
    })
    .strict(),
  /** `queued` → `dead_lettered` (its version has no Workflow here), fenced by the epoch read. */
  z
    .object({
      op: z.literal('dead_letter'),
      ...Job,
      epoch: z.number().int().min(0),
      reason: z.enum(['VERSION_NOT_ROUTABLE', 'MAX_ATTEMPTS']),
      detail: z.string().max(2000),
    })
    .strict(),
]);
export type RuntimeStoreRequest = z.infer<typeof RuntimeStoreRequest>;

/** Answers by operation (a refusal is the error taxonomy's `{ error: { code, message } }`). */
export const RuntimeStoreAnswer = {
  snapshot: z.object({ snapshot: JobSnapshotWire.nullable() }).strict(),
  calls: z.object({ calls: z.array(LedgerRowWire) }).strict(),
  call_intent: z.object({ row: LedgerRowWire }).strict(),
  call_outcome: z.object({ ok: z.literal(true) }).strict(),
  external_id: z.object({ ok: z.literal(true) }).strict(),
  dead_letter: z.object({ moved: z.boolean() }).strict(),
} as const;
