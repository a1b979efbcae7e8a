// The accept path: the only work `jobs.submit` does inside the request. The request's own checks
// (kind, version routing) run first; then it joins the accept batcher (accept-batcher.ts), whose
// one transaction per batch checks files and idempotency and writes the job with both events,
// attaches its files and either queues it (in-transaction runtimes; for the others with an outbox
// row whose pointer is dispatched right after commit: stage.ts) or dead-letters it (a version no
// live worker serves). A rejected request writes nothing.
//
// This folder is that path, called one way: accept.ts → accept-batcher.ts → accept-write.ts, each
// down into stage.ts; the refusals of what the runtime cannot honour (accept-refusals.ts) and the
// idempotency fingerprint (input-hash.ts, canonical-json.ts) beside it.

import {
  assertRolloutPercent,
  chooseVersion,
  dueTime,
  formatJobId,
  resolveFlow,
  randomToken,
  SluiceError,
  type JobRegistry,
  type BatchOptions,
  type DebounceOptions,
  type FlowPlan,
  type KindLimits,
  type SingletonOptions,
  type MessagePointer,
  type RolloutConfig,
  type RuntimeCapabilities,
  type SubmitResult,
} from '@sluice/contracts';
import type { SluiceDatabase } from '@sluice/storage/portable';
import { createAcceptBatcher, type AcceptBatchOptions, type AcceptItem } from './accept-batcher.js';
import { refuseFlowTheRuntimeCannot, refuseWhatTheRuntimeCannot } from './accept-refusals.js';
import type { DispatchPath } from '../dispatch/dispatch.js';
import type { EventHub } from '../events/event-hub.js';
import { createFlowAcceptor, type FlowAcceptAnswer } from '../flow/flow-acceptor.js';
import type { GatewayHooks } from '../hooks.js';
import { logJobStates } from '../observability/log-job-states.js';
import { startAcceptTrace } from '../observability/tracing.js';
import type { Tracer } from '@opentelemetry/api';
import type { GatewayLogger } from '../observability/logger.js';
import type { AcceptOutcome, FlowOutcome, GatewayMetrics } from '../observability/metrics.js';
import type { ServedVersionCheck } from '../dispatch/served-versions.js';
import { dispatchAccepted } from './stage.js';

export interface SubmitRequest {
  kind: string;
  input: unknown;
  idempotencyKey?: string | undefined;
  fileIds?: readonly string[] | undefined;
  /** A delayed job: not before this instant (ISO 8601 with offset). */
  runAt?: string | undefined;
  /** A delayed job: not before this many ms from now. */
  delayMs?: number | undefined;
  /** Overrides the kind's default priority. */
  priority?: number | undefined;
  /** A legal hold from the start: retention never removes the job while it is set. */
  hold?: boolean | undefined;
  /** Flow control (over the kind's declaration): see contracts flow-control.ts. */
  debounce?: DebounceOptions | undefined;
  singleton?: SingletonOptions | undefined;
  batch?: BatchOptions | undefined;
  /** Searchable labels (`jobs.search`), bounded by the submit schema. */
  tags?: string[] | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/** The figures the accept path moves (a prom-client registry on Node, plain fields on Workers). */
export type AcceptMetrics = Pick<
  GatewayMetrics,
  'submits' | 'duplicates' | 'unroutable' | 'observeAccept'
> &
  Partial<Pick<GatewayMetrics, 'countFlow'>>;

/** Hashing and randomness of the accept path: node:crypto (input-hash.ts) or WebCrypto. */
export interface AcceptCrypto {
  /** sha256 (hex) of the canonical JSON of `{ input, fileIds }` (the idempotency fingerprint). */
  inputHash(input: unknown, fileIds: readonly string[]): string | Promise<string>;
  randomBytes(length: number): Uint8Array;
}

export interface AcceptDeps {
  jobs: JobRegistry;
  crypto: AcceptCrypto;
  database: SluiceDatabase;
  dispatch: DispatchPath;
  served: ServedVersionCheck;
  hub: EventHub;
  metrics: AcceptMetrics;
  /** Per-kind override of `versions.rolloutPercent`. */
  rollout?: Readonly<Record<string, number>> | undefined;
  /** Spans of the accept path (default: the global provider's, when one is registered). */
  tracer?: Tracer | undefined;
  /** Where the job state lines go (`info`). */
  logger?: GatewayLogger | undefined;
  /** Group commit of concurrent accepts. */
  batch?: AcceptBatchOptions | undefined;
  /** What the runtime can do: a delayed submit needs `delaysJobs`. */
  capabilities: RuntimeCapabilities;
  /** `limits.kinds` of the deployment's config (replaces a kind's declared start limits). */
  kindLimits?: KindLimits | undefined;
  /** Told the due time of every job written `scheduled` (wakes the due-job scheduler early). */
  onScheduled?: ((dueAt: number) => void) | undefined;
  /**
   * Told of every job dead-lettered at submit (its version is not served), after it is stored:
   * a runtime with a dead-letter queue announces it there, as it does for one dead-lettered at
   * dispatch. A failure is logged; the job's row already says why it ended.
   */
  onDeadLettered?: ((dead: DeadLetteredAtSubmit) => Promise<void>) | undefined;
  /** The flow-control decision and the crash points (tests swap them; hooks.ts). */
  hooks?: Pick<GatewayHooks, 'decideFlow' | 'at'> | undefined;
}

export interface DeadLetteredAtSubmit {
  pointer: MessagePointer;
  reason: 'VERSION_NOT_ROUTABLE';
  detail: string;
}

export interface Acceptor {
  /**
   * `traceparent`: the caller's W3C trace context (ignored when invalid). `apiKeyId`: the key
   * that submits (recorded on the job: per-key start limits count by it).
   */
  (
    tenantId: string,
    request: SubmitRequest,
    traceparent?: string | null,
    apiKeyId?: string | null,
  ): Promise<SubmitResult>;
  /** Answers every accept still queued (shutdown). */
  flush(): Promise<void>;
}

/** What flow control did with a submit, from its answer. */
function flowOutcome(flow: FlowPlan['flow'], result: SubmitResult): FlowOutcome {
  if (result.debounced) return 'folded';
  if (result.skipped) return 'skipped';
  if (result.batchIndex !== undefined && result.batchIndex > 0) return 'appended';
  // A new singleton job written `scheduled` waits for its key.
  if (flow === 'singleton' && result.state === 'scheduled') return 'held';
  return 'opened';
}

export function createAcceptor(deps: AcceptDeps): Acceptor {
  const { dispatch, hub, metrics } = deps;
  const batcher = createAcceptBatcher(deps.database, dispatch, deps.batch);
  const flow = createFlowAcceptor({ ...deps, decide: deps.hooks?.decideFlow, at: deps.hooks?.at });
  // Built once: the rollout of every kind, with its override.
  const rollouts = new Map<string, RolloutConfig>();
  for (const def of Object.values(deps.jobs)) {
    const override = deps.rollout?.[def.kind];
    const rolloutPercent = assertRolloutPercent(override ?? def.versions.rolloutPercent ?? 0);
    rollouts.set(def.kind, { ...def.versions, rolloutPercent });
  }

  async function accept(
    tenantId: string,
    request: SubmitRequest,
    traceContext: string | null,
    apiKeyId: string | null,
  ): Promise<SubmitResult> {
    const def = deps.jobs[request.kind];
    const rollout = rollouts.get(request.kind);
    if (!def || !rollout) throw new SluiceError('BAD_REQUEST', 'unknown job kind');
    const due = dueTime(request, Date.now());
    const priority = request.priority ?? def.priority;
    refuseWhatTheRuntimeCannot(deps.capabilities, {
      kind: request.kind,
      def,
      due,
      priority,
      limits: deps.kindLimits?.[request.kind] ?? def.limits,
    });
    // Debounce, singleton, batch: the submit's fields over the kind's declaration, checked once.
    const plan = resolveFlow(request.kind, def, request, request);
    refuseFlowTheRuntimeCannot(deps.capabilities, request.kind, plan);
    const key = request.idempotencyKey ?? null;
    const fileIds = [...new Set(request.fileIds ?? [])];
    const version =
      rollout.next === undefined || !rollout.rolloutPercent
        ? rollout.current
        : chooseVersion(`${tenantId}\u0000${request.kind}\u0000${key ?? randomToken()}`, rollout);
    const id = formatJobId(version, (n) => deps.crypto.randomBytes(n));
    const route = await deps.served(request.kind, version, id);
    const item: AcceptItem = {
      job: {
        id,
        tenantId,
        kind: request.kind,
        version,
        input: request.input,
        inputHash: await deps.crypto.inputHash(request.input, fileIds),
        idempotencyKey: key,
        fileIds,
        maxAttempts: def.maxAttempts,
        priority,
        traceContext,
        apiKeyId,
        hold: request.hold === true,
        tags: request.tags ?? [],
        metadata: request.metadata ?? {},
        outcome: !route.ok
          ? { to: 'dead_lettered', reason: route.reason, detail: route.detail }
          : due === undefined
            ? { to: 'queued' }
            : { to: 'scheduled', runAt: new Date(due).toISOString() },
      },
      route,
    };
    const answer: FlowAcceptAnswer = plan
      ? await flow.accept(plan, item)
      : await batcher.accept(item);
    if (!answer.ok) throw answer.error;
    if (answer.result.isDuplicate) {
      metrics.duplicates++;
      return answer.result;
    }
    if (plan) metrics.countFlow?.(plan.flow, flowOutcome(plan.flow, answer.result));
    hub.publish(answer.events);
    if (due !== undefined && answer.result.state === 'scheduled') deps.onScheduled?.(due);
    if (answer.dueAt !== undefined) deps.onScheduled?.(answer.dueAt);
    logJobStates(deps.logger, answer.events, { version, attempts: 0, traceContext });
    metrics.submits++;
    // (A submit folded into another job made no job of its own to dead-letter.)
    if (!route.ok && answer.result.id === id) {
      metrics.unroutable++;
      const pointer = { jobId: id, kind: request.kind, version, tenantId };
      await deps
        .onDeadLettered?.({ pointer, reason: route.reason, detail: route.detail })
        .catch((error: unknown) =>
          deps.logger?.error('announcing a dead letter failed', { jobId: id, error }),
        );
    }
    await dispatchAccepted(dispatch, answer.pointer);
    return answer.result;
  }

  // Accept latency by outcome: one clock read on each side, one observation.
  async function timedAccept(
    tenantId: string,
    request: SubmitRequest,
    traceparent?: string | null,
    apiKeyId?: string | null,
  ): Promise<SubmitResult> {
    const started = performance.now();
    let outcome: AcceptOutcome = 'rejected';
    const span = startAcceptTrace(deps.tracer, traceparent ?? null);
    let result: SubmitResult | undefined;
    try {
      result = await accept(tenantId, request, span.stored, apiKeyId ?? null);
      outcome = result.isDuplicate
        ? 'duplicate'
        : result.state === 'dead_lettered'
          ? 'unroutable'
          : 'accepted';
      return result;
    } catch (error) {
      span.end({ kind: request.kind }, error);
      throw error;
    } finally {
      metrics.observeAccept(outcome, (performance.now() - started) / 1000);
      if (result) span.end({ jobId: result.id, kind: request.kind });
    }
  }

  return Object.assign(timedAccept, { flush: () => batcher.flush() });
}
