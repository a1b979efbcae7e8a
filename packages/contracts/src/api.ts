// The gateway's public API, shared by the gateway (tRPC `.input()`/`.output()`) and the client
// (types only). Outputs are explicit objects: nothing internal (epochs, attempt ids, blob keys,
// idempotency keys, input hashes) reaches a caller.

import { z } from 'zod';
import { JobErrorSchema, JobEvent } from './events.js';
import { FlowAnswer } from './flow-control.js';
import { JobWaiting } from './limits.js';
import { JOB_ID_PATTERN, MAX_JOB_ID_LENGTH } from './job-id.js';
import { JOB_STATES } from './state-machine.js';
import { FileId } from './submit-schema.js';

export const JobIdInput = z
  .string()
  .max(MAX_JOB_ID_LENGTH)
  .regex(JOB_ID_PATTERN, 'must be a job id: v<version>-<26 characters a-z, 2-7>');
const state = z.enum(JOB_STATES);
const kind = z.string().max(100);

export const JobView = z.object({
  id: z.string(),
  kind: z.string(),
  version: z.string(),
  state,
  attempts: z.number().int(),
  maxAttempts: z.number().int(),
  reason: z.string().nullable(),
  error: JobErrorSchema.nullable(),
  fileIds: z.array(z.string()),
  /** Not before: the due time of a scheduled job, or of a queued job's next attempt (backoff). */
  runAt: z.string().nullable(),
  /** Higher is handed out first; raised while the job waits (aging). */
  priority: z.number().int(),
  /** Why a queued job is not running: the start or provider limit that holds it (null: none). */
  waiting: JobWaiting.nullable().optional(),
  /** Under a legal hold: retention never removes the job while it is set (`jobs.hold`). */
  hold: z.boolean().optional(),
  /** A child job's parent (`ctx.children.start`); its children: `jobs.children`. */
  parentId: z.string().nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
  /**
   * The sequence number of the job's newest event when this view was read: an event at or below
   * it (a live feed's late delivery) is already in the view. Absent from gateways before it.
   */
  lastSeq: z.number().int().nonnegative().optional(),
});
export type JobView = z.infer<typeof JobView>;

/** `debounced`, `skipped`, `batchIndex`: what flow control did with the submit (flow-control.ts). */
export const SubmitResult = z.object({
  id: z.string(),
  state,
  isDuplicate: z.boolean(),
  ...FlowAnswer.shape,
});
export type SubmitResult = z.infer<typeof SubmitResult>;

export const GetInput = z.object({ id: JobIdInput }).strict();
export const ListInput = z
  .object({
    state: state.optional(),
    kind: kind.optional(),
    cursor: z.string().max(200).nullish(),
    limit: z.number().int().min(1).max(100).default(20),
  })
  .strict();
export const ListResult = z.object({ items: z.array(JobView), nextCursor: z.string().nullable() });
export type ListResult = z.infer<typeof ListResult>;

export const CancelResult = z.object({ id: z.string(), state });

/** `jobs.hold`: set or lift a job's legal hold (scope `jobs:manage`). */
export const HoldInput = z.object({ id: JobIdInput, hold: z.boolean() }).strict();
export const HoldResult = z.object({ id: z.string(), hold: z.boolean() });
export type HoldResult = z.infer<typeof HoldResult>;

/** `output` is the job's typed output once it succeeded, else null; `error` once it failed. */
export const JobResult = z.object({
  id: z.string(),
  state,
  output: z.unknown(),
  error: JobErrorSchema.nullable(),
  reason: z.string().nullable(),
});
export type JobResult = z.infer<typeof JobResult>;

export const WatchInput = z
  .object({ id: JobIdInput, lastEventId: z.string().max(20).nullish() })
  .strict();
export const WatchAllInput = z
  .object({
    kinds: z.array(kind).max(50).optional(),
    states: z.array(state).max(JOB_STATES.length).optional(),
  })
  .strict();
/** One item of the tenant-wide feed: the event and which kind of job it belongs to. */
export const FeedItem = z.object({ kind: z.string(), event: JobEvent });
export type FeedItem = z.infer<typeof FeedItem>;

export const FileView = z.object({
  id: z.string(),
  size: z.number(),
  sha256: z.string(),
  contentType: z.string(),
  filename: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
});
export type FileView = z.infer<typeof FileView>;
export const FileIdInput = z.object({ id: FileId }).strict();

export const PageInput = z
  .object({
    kind: kind.optional(),
    cursor: z.string().max(200).nullish(),
    limit: z.number().int().min(1).max(100).default(20),
  })
  .strict();
export const ReviewDecisionInput = z
  .object({ id: JobIdInput, note: z.string().min(1).max(2000) })
  .strict();

/** One paid call an attempt left in billing doubt: what an approval authorises once more. */
export const CallInDoubt = z.object({
  unitKey: z.string(),
  callName: z.string(),
  provider: z.string(),
  /** How its last try ended: `connection_dropped`, `timeout`, `server_error`, `pending`, … */
  outcome: z.string(),
});
export type CallInDoubt = z.infer<typeof CallInDoubt>;
/**
 * A job parked in `needs_review` with what a person needs to decide: why, the unit and provider
 * the job's review event named, and the calls an approval would let through once more.
 */
export const ReviewItem = JobView.extend({
  review: z.object({
    reason: z.string(),
    unitKey: z.string().nullable(),
    provider: z.string().nullable(),
    at: z.string().nullable(),
    calls: z.array(CallInDoubt),
  }),
});
export type ReviewItem = z.infer<typeof ReviewItem>;
export const ReviewListResult = z.object({
  items: z.array(ReviewItem),
  nextCursor: z.string().nullable(),
});
export type ReviewListResult = z.infer<typeof ReviewListResult>;

// Downloads. A job's asset is named by `name` plus the unit that wrote it (`unit` null: the
// job's finalize stage); the bytes come from `GET /v1/jobs/:id/assets/:name[?unit=…]`.
export const AssetName = z
  .string()
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'not an asset name');
export const UnitKey = z.string().min(1).max(200);
export const AssetView = z.object({
  name: z.string(),
  unit: z.string().nullable(),
  size: z.number(),
  sha256: z.string(),
  contentType: z.string(),
  createdAt: z.string(),
});
export type AssetView = z.infer<typeof AssetView>;
export const JobAssetsResult = z.object({ items: z.array(AssetView) });
export type JobAssetsResult = z.infer<typeof JobAssetsResult>;

const expiresInSeconds = z.number().int().min(1).max(3600).default(300);
export const FileUrlInput = z.object({ id: FileId, expiresInSeconds }).strict();
export const AssetUrlInput = z
  .object({ id: JobIdInput, name: AssetName, unit: UnitKey.nullish(), expiresInSeconds })
  .strict();
/** `url` is absolute (a presigned store URL) or a gateway path to resolve against its base URL. */
export const SignedUrl = z.object({ url: z.string(), expiresAt: z.string() });
export type SignedUrl = z.infer<typeof SignedUrl>;

export * from './api-paths.js';
