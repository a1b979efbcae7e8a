// Spans of the worker: one per attempt, a child of the trace context its job was submitted under
// (stored on the job row by the gateway), and one per request the provider guard sends, a child
// of the attempt's, whose `traceparent` goes out with the request. `@opentelemetry/api` is the
// only dependency: with no SDK registered (and no tracer given) nothing is started or allocated
// per job, and a provider request still carries the job's stored trace context so the provider's
// side joins the same trace.

import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent } from '@sluice/contracts';
import { tracingEnabled } from '@sluice/contracts/tracing';

/** The tracer to use now: the one given, the global one when an SDK is registered, or none. */
export function activeTracer(given: Tracer | undefined): Tracer | undefined {
  if (given) return given;
  return tracingEnabled() ? trace.getTracer('@sluice/worker') : undefined;
}

/** What the guard needs to start a call's span: the tracer and the attempt span's context. */
export interface CallTraceParent {
  readonly tracer: Tracer;
  readonly context: Context;
}

export interface AttemptTrace {
  readonly parent: CallTraceParent;
  end(outcome: string, failed: boolean): void;
}

interface TracedJob {
  readonly id: string;
  readonly kind: string;
  readonly version: string;
  readonly attempts: number;
  readonly traceContext?: string | null | undefined;
}

/** Only called with a tracer: without one an attempt starts nothing. */
export function startAttemptTrace(tracer: Tracer, job: TracedJob): AttemptTrace {
  const stored = parseTraceparent(job.traceContext);
  const parent = stored
    ? trace.setSpanContext(ROOT_CONTEXT, { ...stored, isRemote: true })
    : ROOT_CONTEXT;
  const span = tracer.startSpan(
    'sluice.attempt',
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'sluice.job.id': job.id,
        'sluice.job.kind': job.kind,
        'sluice.job.version': job.version,
        'sluice.job.attempt': job.attempts,
      },
    },
    parent,
  );
  return {
    parent: { tracer, context: trace.setSpan(parent, span) },
    end(outcome, failed) {
      span.setAttribute('sluice.attempt.outcome', outcome);
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
      span.end();
    },
  };
}

export interface CallTrace {
  /** The `traceparent` header this request carries (undefined: none). */
  readonly traceparent: string | undefined;
  end(outcome: string, failed: boolean): void;
}

const UNTRACED_CALL: CallTrace = { traceparent: undefined, end() {} };

/**
 * A span for one request (with the attempt's span as parent), or, with no tracer, just the job's
 * stored `traceparent` to send on, so the provider's side still joins the trace.
 */
export function startCallTrace(
  parent: CallTraceParent | undefined,
  stored: string | null | undefined,
  call: { name: string; callClass: string; provider: string; method: string; url: string },
): CallTrace {
  if (!parent) {
    const valid = parseTraceparent(stored);
    return valid ? { traceparent: formatTraceparent(valid), end() {} } : UNTRACED_CALL;
  }
  const span: Span = parent.tracer.startSpan(
    'sluice.provider_call',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'sluice.call.name': call.name,
        'sluice.call.class': call.callClass,
        'sluice.provider': call.provider,
        'http.request.method': call.method,
        'url.full': call.url,
      },
    },
    parent.context,
  );
  const own = parseTraceparent(formatTraceparent(span.spanContext()));
  return {
    traceparent: own ? formatTraceparent(own) : undefined,
    end(outcome, failed) {
      span.setAttribute('sluice.call.outcome', outcome);
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
      span.end();
    },
  };
}
