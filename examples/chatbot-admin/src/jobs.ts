// The example's job registry: `document.analyze` turns an uploaded PDF, XLSX or CSV into a
// chatbot knowledge-base entry (tables and intents). Imported as a type by the web app, as a
// value by gateway and worker.
import { defineJob, defineJobs } from '@sluice/contracts';
import { z } from 'zod';

export const ANALYZE_STEPS = [
  'convert',
  'approval',
  'classify',
  'intents',
  'done',
  'merge',
  'publish',
] as const;

export const Table = z.object({
  title: z.string(),
  columns: z.array(z.string()),
  rows: z.array(z.array(z.string())),
});
export type Table = z.infer<typeof Table>;

export const Intent = z.object({
  name: z.string(),
  examples: z.array(z.string()),
  answer: z.string(),
  /** The unit (page, sheet, rows) it came from. */
  source: z.string(),
});
export type Intent = z.infer<typeof Intent>;

/** The handler versions of `document.analyze`: v2 adds keywords per unit (see this example's README, rollout). */
export const ANALYZERS = ['v1', 'v2'] as const;
export type Analyzer = (typeof ANALYZERS)[number];

export const documentAnalyze = defineJob({
  kind: 'document.analyze',
  // New documents go to v2 by `rolloutPercent` (0 here; the app's SLUICE_ROLLOUT_DOCUMENT_ANALYZE
  // overrides it at the gateway). The version is fixed at accept and never changes after.
  versions: { current: 'v1', next: 'v2', rolloutPercent: 0 },
  input: z
    .object({
      /** The uploaded document (its file id, also passed in the submit's `fileIds`). */
      fileId: z.string().min(1).max(100),
      /** The name it was uploaded under (display only). */
      filename: z.string().trim().min(1).max(255),
      /** Rows per unit of a CSV. */
      csvRowsPerUnit: z.number().int().min(5).max(1000).default(50),
      /** Wait for a person to approve the paid provider calls (after the free conversion). */
      requireApproval: z.boolean().default(false),
    })
    .strict(),
  output: z.object({
    filename: z.string(),
    format: z.enum(['pdf', 'xlsx', 'csv']),
    /** The handler version that produced this entry. */
    analyzer: z.enum(ANALYZERS),
    units: z.array(
      z.object({
        key: z.string(),
        label: z.string(),
        category: z.string(),
        /** v2 only: the unit's main terms, for search and for the chat's matching. */
        keywords: z.array(z.string()).optional(),
      }),
    ),
    tables: z.array(Table.extend({ source: z.string() })),
    intents: z.array(Intent),
    /** The knowledge-base JSON, written through the asset protocol. */
    asset: z.object({ name: z.string(), size: z.number().int(), sha256: z.string() }),
  }),
  progress: z.object({
    /** 1-based unit number; 0 for the job's own steps (merge, publish). */
    unit: z.number().int().min(0),
    units: z.number().int().min(0),
    /** A human label: "Page 2", "Sheet Prices", "Rows 51–100". */
    label: z.string(),
    step: z.enum(ANALYZE_STEPS),
    /** The handler version reporting it. */
    analyzer: z.enum(ANALYZERS),
    /** Step `approval` only: the token's public path (`/v1/tokens/<token>`) a person completes. */
    approvePath: z.string().optional(),
  }),
  // What the approval link sends: the decision, and who took it (display only).
  events: {
    approval: z
      .object({ approved: z.boolean(), by: z.string().trim().min(1).max(100).optional() })
      .strict(),
  },
  providers: {
    // A plain synchronous model call without an idempotency key: a lost answer is ambiguous.
    classify: { provider: 'fake-ai', modality: 'text', call: 'sync', idempotencyKey: 'none' },
    // Intent generation is an asynchronous job with an external id: pollable, never resubmitted.
    intents: { provider: 'fake-ai', modality: 'text', call: 'async-job', idempotencyKey: 'none' },
  },
  maxAttempts: 3,
});

export const jobs = defineJobs(documentAnalyze);
export type Jobs = typeof jobs;
