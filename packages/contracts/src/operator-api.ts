// The operator plane's read side: search jobs by anything an operator knows about them, and one
// call that returns everything about one job. Shared by the gateway (tRPC `.input()/.output()`)
// and the typed client (types only).

import { z } from 'zod';
import { AssetView, JobIdInput, JobView } from './api.js';
import { JobErrorSchema, JobEvent } from './events.js';
import { Metadata, MetadataKey, Tag } from './job-labels.js';
import { JOB_STATES } from './state-machine.js';

const state = z.enum(JOB_STATES);
const isoTime = z.iso.datetime({ offset: true });

/** `key` alone: the job has the key; with `value`: its value's text is exactly `value`. */
export const MetadataMatch = z
  .object({ key: MetadataKey, value: z.string().max(1000).optional() })
  .strict();
export type MetadataMatch = z.infer<typeof MetadataMatch>;

/**
 * `jobs.search`: every filter is optional and they combine with AND (tags: the job has every
 * one). `tenant` is for `admin` keys only: another tenant's id, or `*` for every tenant; any
 * other key gives it and is refused (FORBIDDEN), never silently scoped.
 */
export const SearchInput = z
  .object({
    kind: z.string().max(100).optional(),
    version: z.string().max(20).optional(),
    states: z.array(state).min(1).max(JOB_STATES.length).optional(),
    tenant: z.string().min(1).max(200).optional(),
    tags: z.array(Tag).min(1).max(10).optional(),
    metadata: z.array(MetadataMatch).min(1).max(10).optional(),
    createdAfter: isoTime.optional(),
    createdBefore: isoTime.optional(),
    finishedAfter: isoTime.optional(),
    finishedBefore: isoTime.optional(),
    /** Case-insensitive text in the job's error or reason (not indexed: narrow with the others). */
    errorText: z.string().min(1).max(200).optional(),
    cursor: z.string().max(300).nullish(),
    limit: z.number().int().min(1).max(100).default(20),
  })
  .strict();
export type SearchInput = z.input<typeof SearchInput>;
/** The filters of a search without its page: what a bulk operation runs over. */
export const JobFilter = SearchInput.omit({ cursor: true, limit: true });
export type JobFilter = z.input<typeof JobFilter>;

/** A job as search and detail show it: the view plus its labels and, for `admin`, its tenant. */
export const LabelledJobView = JobView.extend({
  tags: z.array(z.string()),
  metadata: Metadata,
  tenantId: z.string().optional(),
});
export type LabelledJobView = z.infer<typeof LabelledJobView>;
export const SearchResult = z.object({
  items: z.array(LabelledJobView),
  nextCursor: z.string().nullable(),
});
export type SearchResult = z.infer<typeof SearchResult>;

/** One attempt, from its `running` event to the event that ended it (null: still running). */
export const AttemptView = z.object({
  attempt: z.number().int(),
  /** Fencing token of the attempt (null for attempts stored before it was recorded). */
  epoch: z.number().int().nullable(),
  /** The worker that ran it (null where the runtime does not name one). */
  worker: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  /** The state it ended in (`succeeded`, `queued` for a retry, …); null while running. */
  outcome: state.nullable(),
  reason: z.string().nullable(),
  error: JobErrorSchema.nullable(),
});
export type AttemptView = z.infer<typeof AttemptView>;

/** A stored checkpoint: a unit's result, or a stage's (`stage:prepare`, `stage:apply`, …). */
export const UnitView = z.object({
  /** The step it belongs to, as stored (`unit:<key>`, `stage:prepare`, …). */
  step: z.string(),
  /** The unit's own key (null for a stage). */
  unitKey: z.string().nullable(),
  /** The checkpoint: the unit's result (null when it is an asset). */
  result: z.unknown(),
  assetKey: z.string().nullable(),
  epoch: z.number().int(),
  createdAt: z.string(),
});
export type UnitView = z.infer<typeof UnitView>;

/** One row of the provider-call ledger: written before the request left. */
export const LedgerCallView = z.object({
  id: z.string(),
  unitKey: z.string(),
  callName: z.string(),
  provider: z.string(),
  modality: z.string(),
  callClass: z.string(),
  /** `pending`, `succeeded`, `never_sent`, `timeout`, `authorised`, … */
  outcome: z.string(),
  /** The request left for the provider, so it may have charged (every outcome but never_sent, refused, authorised). */
  billed: z.boolean(),
  idempotencyKey: z.string().nullable(),
  externalId: z.string().nullable(),
  attempt: z.number().int(),
  epoch: z.number().int(),
  authorisedBy: z.string().nullable(),
  note: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type LedgerCallView = z.infer<typeof LedgerCallView>;

/** Where the job sits among others: filled once jobs can start children or wait on each other. */
export const JobLinks = z.object({
  parent: z.string().nullable(),
  children: z.array(z.object({ id: z.string(), kind: z.string(), state })),
  waits: z.array(z.object({ on: z.string(), reason: z.string(), since: z.string() })),
});
export type JobLinks = z.infer<typeof JobLinks>;

export const JobDetail = z.object({
  job: LabelledJobView.extend({ input: z.unknown(), output: z.unknown() }),
  attempts: z.array(AttemptView),
  units: z.array(UnitView),
  calls: z.array(LedgerCallView),
  /** Ledger totals: rows, and those the provider may have billed. */
  bills: z.object({ calls: z.number().int(), billed: z.number().int() }),
  assets: z.array(AssetView),
  links: JobLinks,
  /** The whole event history, oldest first. */
  events: z.array(JobEvent),
});
export type JobDetail = z.infer<typeof JobDetail>;
/** `tenant`: as in a search, for `admin` keys only (another tenant's job). */
export const DetailInput = z
  .object({ id: JobIdInput, tenant: z.string().min(1).max(200).optional() })
  .strict();
