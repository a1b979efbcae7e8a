// Flow control at submit: debounce, singleton and batch. Each is declared on the job definition
// (`defineJob({ debounce | singleton | batch })`) or given per submit; the submit's fields win
// over the definition's, and what results is checked here once, by one pure function, so the
// gateway and every runtime read the same plan. A submit that asks for something the plan cannot
// honour is refused with a BAD_REQUEST naming the field, never silently run without it.

import { z } from 'zod';
import { SluiceError } from './errors.js';

/** The longest debounce window or batch wait: a day (longer is a calendar's job). */
export const MAX_FLOW_WAIT_MS = 24 * 60 * 60 * 1000;
/** The most inputs one batch run receives. */
export const MAX_BATCH_SIZE = 1000;

/** A flow key: scoped by tenant and kind; `''` (the default) covers the whole kind. */
export const FlowKey = z.string().max(200);
const WaitMs = z.number().int().min(1).max(MAX_FLOW_WAIT_MS);

export const DEBOUNCE_MODES = ['leading', 'trailing'] as const;
export type DebounceMode = (typeof DEBOUNCE_MODES)[number];
export const SINGLETON_MODES = ['skip', 'queue', 'cancel-older'] as const;
export type SingletonMode = (typeof SINGLETON_MODES)[number];

/** As given (definition or submit): every field optional, the merge must be complete. */
export const DebounceOptions = z
  .object({
    key: FlowKey.optional(),
    /** Quiet time that closes the window. */
    delayMs: WaitMs.optional(),
    /** Longest a window stays open from its first submit (default: `delayMs`… never longer). */
    maxDelayMs: WaitMs.optional(),
    mode: z.enum(DEBOUNCE_MODES).optional(),
  })
  .strict();
export type DebounceOptions = z.infer<typeof DebounceOptions>;

export const SingletonOptions = z
  .object({ key: FlowKey.optional(), mode: z.enum(SINGLETON_MODES).optional() })
  .strict();
export type SingletonOptions = z.infer<typeof SingletonOptions>;

export const BatchOptions = z
  .object({
    key: FlowKey.optional(),
    maxSize: z.number().int().min(1).max(MAX_BATCH_SIZE).optional(),
    /** Longest the first input waits for the batch to fill. */
    maxWaitMs: WaitMs.optional(),
  })
  .strict();
export type BatchOptions = z.infer<typeof BatchOptions>;

/** What a definition declares (`defineJob({ batch })` also changes its handler's shape). */
export interface FlowDeclarations {
  readonly debounce?: DebounceOptions | undefined;
  readonly singleton?: SingletonOptions | undefined;
  readonly batch?: BatchOptions | undefined;
}

/** What a submit asks for (the wire fields of `jobs.submit`). */
export type FlowRequest = FlowDeclarations;

/** The complete plan of one submit, or none. */
export type FlowPlan =
  | {
      flow: 'debounce';
      key: string;
      mode: DebounceMode;
      delayMs: number;
      maxDelayMs: number;
    }
  | { flow: 'singleton'; key: string; mode: SingletonMode }
  | { flow: 'batch'; key: string; maxSize: number; maxWaitMs: number };
export type FlowName = FlowPlan['flow'];
export const FLOW_NAMES = ['debounce', 'singleton', 'batch'] as const satisfies FlowName[];

/** Checks a definition's declarations (INVALID_CONFIG naming the field). */
export function parseFlowDeclarations(kind: string, decl: FlowDeclarations): FlowDeclarations {
  const out: { -readonly [K in keyof FlowDeclarations]: FlowDeclarations[K] } = {};
  const schemas = { debounce: DebounceOptions, singleton: SingletonOptions, batch: BatchOptions };
  const declared = FLOW_NAMES.filter((f) => decl[f] !== undefined);
  if (declared.length > 1) {
    throw new SluiceError(
      'INVALID_CONFIG',
      `job "${kind}": declare one of ${declared.join(', ')}`,
      {
        details: { kind, field: declared[1] },
      },
    );
  }
  for (const f of declared) {
    const parsed = schemas[f].safeParse(decl[f]);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = [f, ...(issue?.path ?? [])].join('.');
      throw new SluiceError('INVALID_CONFIG', `job "${kind}": ${field}: ${issue?.message}`, {
        details: { kind, field },
      });
    }
    (out as Record<string, unknown>)[f] = Object.freeze(parsed.data);
  }
  // A batch kind's stored input is an array: a submit cannot opt it out, so its wait must exist.
  if (out.batch) complete('batch', { ...out.batch }, 'INVALID_CONFIG', kind);
  return Object.freeze(out);
}

function refuse(
  code: 'BAD_REQUEST' | 'INVALID_CONFIG',
  field: string,
  message: string,
  kind: string,
) {
  return new SluiceError(code, `${field}: ${message}`, { details: { kind, field } });
}

function complete(
  flow: FlowName,
  merged: Record<string, unknown>,
  code: 'BAD_REQUEST' | 'INVALID_CONFIG',
  kind: string,
): FlowPlan {
  const need = (field: string) => {
    if (merged[field] === undefined)
      throw refuse(code, `${flow}.${field}`, 'required (on the submit or the definition)', kind);
    return merged[field] as number;
  };
  const key = (merged.key as string | undefined) ?? '';
  switch (flow) {
    case 'debounce': {
      const delayMs = need('delayMs');
      const maxDelayMs = (merged.maxDelayMs as number | undefined) ?? MAX_FLOW_WAIT_MS;
      if (maxDelayMs < delayMs)
        throw refuse(code, 'debounce.maxDelayMs', 'must be at least delayMs', kind);
      const mode = (merged.mode as DebounceMode | undefined) ?? 'trailing';
      return { flow, key, mode, delayMs, maxDelayMs };
    }
    case 'singleton': {
      const mode = (merged.mode as SingletonMode | undefined) ?? 'skip';
      return { flow, key, mode };
    }
    case 'batch':
      return { flow, key, maxSize: need('maxSize'), maxWaitMs: need('maxWaitMs') };
  }
}

/** The other submit fields a flow plan cannot be combined with. */
export interface FlowCompanions {
  idempotencyKey?: string | undefined;
  runAt?: string | undefined;
  delayMs?: number | undefined;
}

/**
 * The flow plan of one submit: the submit's fields over the definition's declaration. Refuses
 * (BAD_REQUEST, `details.field`) two flows at once, another flow than the declared one, a batch on
 * a kind whose handler takes one input, a delay with a debounce or batch (they own the due time), and an idempotency key with a
 * debounce or batch (a folded submit has no row of its own to carry it).
 */
export function resolveFlow(
  kind: string,
  declared: FlowDeclarations,
  request: FlowRequest,
  companions: FlowCompanions = {},
): FlowPlan | undefined {
  const asked = FLOW_NAMES.filter((f) => request[f] !== undefined);
  if (asked.length > 1)
    throw refuse('BAD_REQUEST', asked[1] as string, `give one of ${asked.join(', ')}`, kind);
  if (request.batch !== undefined && declared.batch === undefined) {
    throw refuse(
      'BAD_REQUEST',
      'batch',
      'this kind is not declared with batch (its handler takes one input)',
      kind,
    );
  }
  // A submit may refine the declared flow, never swap it: a kind declared singleton stays one
  // (another flow would let a second job of its key run), and a batch kind's runs take arrays.
  const own = FLOW_NAMES.find((f) => declared[f] !== undefined);
  const other = asked[0] !== undefined && own !== undefined && asked[0] !== own;
  if (other) {
    throw refuse('BAD_REQUEST', asked[0] as string, `this kind is declared with ${own}`, kind);
  }
  const flow = asked[0] ?? own;
  if (flow === undefined) return undefined;
  const base = declared[flow] ?? {};
  const merged: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(request[flow] ?? {})) if (v !== undefined) merged[k] = v;
  const plan = complete(flow, merged, 'BAD_REQUEST', kind);
  if (plan.flow !== 'singleton') {
    if (companions.runAt !== undefined || companions.delayMs !== undefined) {
      const field = companions.runAt !== undefined ? 'runAt' : 'delayMs';
      throw refuse('BAD_REQUEST', field, `${plan.flow} decides when the job runs`, kind);
    }
    if (companions.idempotencyKey !== undefined) {
      throw refuse(
        'BAD_REQUEST',
        'idempotencyKey',
        `a ${plan.flow} submit folds into a shared job and cannot carry its own key`,
        kind,
      );
    }
  }
  return plan;
}

/**
 * What a flow-controlled submit answers beyond `{ id, state, isDuplicate }`:
 * - `debounced`: this submit was folded into an open window's job; `id` is that job (in trailing
 *   mode it now runs with this submit's input, in leading mode with the first one's).
 * - `skipped`: a singleton in `skip` mode found a live job of its key; `id` is that job.
 * - `batchIndex`: this submit's position in the batch job `id`; its share of the output is
 *   `output[batchIndex]`.
 */
export const FlowAnswer = z.object({
  debounced: z.boolean().optional(),
  skipped: z.boolean().optional(),
  batchIndex: z.number().int().min(0).optional(),
});
export type FlowAnswer = z.infer<typeof FlowAnswer>;

/** The capability each flow needs from a runtime (read by the gateway's accept path). */
export const FLOW_CAPABILITY = {
  debounce: 'debouncesSubmits',
  singleton: 'singletonKeys',
  batch: 'batchesSubmits',
} as const satisfies Record<FlowName, string>;
