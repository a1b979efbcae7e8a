// The worker code of `document.analyze`:
//   prepare   reads the uploaded file and converts it for real into units (pages, sheets, rows)
//   execute   per unit: classify + extract tables (sync call → ambiguous), then intents as an
//             async provider job (submit → external id recorded → polled → pollable)
//   apply     merges tables and intents (no provider calls)
//   finalize  writes the knowledge-base JSON through the asset protocol
// Progress is reported per unit and step with the unit's human label. With `requireApproval`,
// prepare waits for a person between the free conversion and the first paid call.
// Two versions share this code, each bound to its own name: v1 classifies; v2 also asks the
// provider for each unit's keywords and keeps them in the knowledge-base entry. Every progress
// event and the output name the version that produced them.
import { NonRetriableError } from '@sluice/contracts';
import {
  defineHandler,
  type AsyncJobSpec,
  type CallInfo,
  type HandlerContext,
} from '@sluice/worker';
import { z } from 'zod';
import {
  documentAnalyze,
  Intent,
  type Analyzer,
  Table,
  type Intent as IntentT,
  type Table as TableT,
} from '../jobs.js';
import { convertDocument, type DocUnit, type Format } from './convert.js';

type Ctx = HandlerContext<typeof documentAnalyze>;

export interface AnalyzeOptions {
  /** Which handler version this is. */
  version: Analyzer;
  /** The AI provider's base URL. */
  aiUrl: string;
  /** How often an intent job is polled. */
  pollMs?: number;
}

interface UnitInput extends DocUnit {
  index: number;
  units: number;
  format: Format;
  filename: string;
}

interface UnitResult {
  key: string;
  label: string;
  category: string;
  keywords?: string[];
  tables: (TableT & { source: string })[];
  intents: IntentT[];
  format: Format;
  filename: string;
}

const ClassifyAnswer = z.object({
  category: z.string(),
  confidence: z.number(),
  tables: z.array(Table),
  keywords: z.array(z.string()).optional(),
});
const IntentsDone = z.object({
  status: z.literal('succeeded'),
  intents: z.array(Intent.omit({ source: true })),
});

const headers = (info: CallInfo) => ({
  'x-job-id': info.jobId,
  'x-unit-key': info.unitKey,
  'x-attempt-id': info.attemptId,
});

function intentJob(o: AnalyzeOptions): AsyncJobSpec {
  return {
    externalId: (a) => String((a.body as { id?: unknown }).id ?? ''),
    poll: (id, info) => ({ url: `${o.aiUrl}/v1/intent-jobs/${id}`, headers: headers(info) }),
    status: (a) => {
      const s = (a.body as { status?: unknown }).status;
      return s === 'succeeded' ? 'succeeded' : s === 'running' ? 'running' : 'failed';
    },
    intervalMs: o.pollMs ?? 100,
    timeoutMs: 5 * 60_000,
  };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function analyzeUnit(unit: UnitInput, ctx: Ctx, o: AnalyzeOptions): Promise<UnitResult> {
  const progress = (step: 'classify' | 'intents' | 'done') =>
    ctx.progress({
      unit: unit.index + 1,
      units: unit.units,
      label: unit.label,
      step,
      analyzer: o.version,
    });
  progress('classify');
  const classified = ClassifyAnswer.parse(
    (
      await ctx.providers.call('classify', (info) => ({
        method: 'POST',
        url: `${o.aiUrl}/v1/classify`,
        headers: headers(info),
        body: {
          text: unit.text,
          label: unit.label,
          ...(unit.rows ? { rows: unit.rows } : {}),
          ...(o.version === 'v2' ? { detail: 'keywords' } : {}),
        },
      }))
    ).body,
  );
  progress('intents');
  const generated = IntentsDone.parse(
    (
      await ctx.providers.call(
        'intents',
        (info) => ({
          method: 'POST',
          url: `${o.aiUrl}/v1/intent-jobs`,
          headers: headers(info),
          body: { text: unit.text, category: classified.category, tables: classified.tables },
        }),
        { asyncJob: intentJob(o) },
      )
    ).body,
  );
  progress('done');
  return {
    key: unit.key,
    label: unit.label,
    category: classified.category,
    ...(o.version === 'v2' ? { keywords: classified.keywords ?? [] } : {}),
    tables: classified.tables.map((t) => ({ ...t, source: unit.label })),
    intents: generated.intents.map((i) => ({ ...i, source: unit.label })),
    format: unit.format,
    filename: unit.filename,
  };
}

/** How long the approval link stays valid; the job waits that long, holding nothing. */
const APPROVAL_TTL_MS = 2 * 86_400_000;

/**
 * Waits for the approval link's decision. Runs after the conversion (free) and before any
 * provider call, so nothing is billed until a person says yes; a rejection fails the document
 * for good. After the resume the conversion runs again and the wait returns the stored decision.
 */
async function awaitApproval(ctx: Ctx, o: AnalyzeOptions, units: number): Promise<void> {
  const token = await ctx.createToken({ event: 'approval', expiresIn: APPROVAL_TTL_MS });
  // Only the run that made the token holds it (the database keeps its hash): publish it now.
  if (token.path)
    ctx.progress({
      unit: 0,
      units,
      label: `Waiting for approval of ${units} paid unit${units === 1 ? '' : 's'}`,
      step: 'approval',
      analyzer: o.version,
      approvePath: token.path,
    });
  const decision = await ctx.waitForEvent('approval', { timeoutMs: APPROVAL_TTL_MS });
  if (decision.timedOut)
    throw new NonRetriableError('ANALYSIS_NOT_APPROVED: nobody approved the analysis in time');
  if (!decision.payload.approved)
    throw new NonRetriableError(
      `ANALYSIS_REJECTED: ${decision.payload.by ?? 'the approver'} rejected the paid analysis`,
    );
}

export function createAnalyzeHandler(o: AnalyzeOptions) {
  return defineHandler<typeof documentAnalyze, UnitInput, UnitResult, UnitResult[]>(
    documentAnalyze,
    {
      async prepare(ctx) {
        ctx.progress({
          unit: 0,
          units: 0,
          label: 'Reading the document',
          step: 'convert',
          analyzer: o.version,
        });
        const bytes = await readAll(await ctx.files.open(ctx.input.fileId));
        const { format, units } = await convertDocument(bytes, {
          csvRowsPerUnit: ctx.input.csvRowsPerUnit,
        });
        if (ctx.input.requireApproval) await awaitApproval(ctx, o, units.length);
        const filename = ctx.input.filename;
        return units.map((u, index) => ({
          key: u.key,
          input: { ...u, index, units: units.length, format, filename },
        }));
      },
      execute: (unit, ctx) => analyzeUnit(unit.input, ctx, o),
      apply: (results, ctx) => {
        ctx.progress({
          unit: 0,
          units: results.length,
          label: 'Merging tables and intents',
          step: 'merge',
          analyzer: o.version,
        });
        return results.map((r) => r.result);
      },
      async finalize(units, ctx) {
        ctx.progress({
          unit: 0,
          units: units.length,
          label: 'Publishing the knowledge base',
          step: 'publish',
          analyzer: o.version,
        });
        // One intent per name: the first unit that produced it wins, later examples are merged in.
        const byName = new Map<string, IntentT>();
        for (const intent of units.flatMap((u) => u.intents)) {
          const seen = byName.get(intent.name);
          if (!seen) byName.set(intent.name, { ...intent, examples: [...intent.examples] });
          else
            for (const e of intent.examples) if (!seen.examples.includes(e)) seen.examples.push(e);
        }
        const entry = {
          jobId: ctx.jobId,
          filename: ctx.input.filename,
          format: units[0]?.format ?? 'pdf',
          analyzer: o.version,
          units: units.map((u) => ({
            key: u.key,
            label: u.label,
            category: u.category,
            ...(u.keywords ? { keywords: u.keywords } : {}),
          })),
          tables: units.flatMap((u) => u.tables),
          intents: [...byName.values()],
        };
        const json = JSON.stringify(entry, null, 2);
        const asset = await ctx.assets.write({
          name: 'knowledge-base.json',
          body: json,
          contentType: 'application/json',
        });
        return {
          ...entry,
          asset: {
            name: 'knowledge-base.json',
            size: asset.size,
            sha256: asset.sha256,
          },
        };
      },
    },
  );
}
