// The accept span: a submit's work in the gateway, a child of the caller's `traceparent` (the
// typed client always sends one). What the job row stores is this span's context, so the
// worker's attempt span is its child; with no tracer registered (the API is a no-op) the
// caller's context is stored as it came, so the trace still reaches the worker. Invalid headers
// are ignored, as W3C asks.

import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent } from '@sluice/contracts';
import { tracingEnabled } from '@sluice/contracts/tracing';

export interface AcceptTrace {
  /** The `traceparent` stored on the job row (null: no trace). */
  readonly stored: string | null;
  end(attributes: { jobId?: string; kind: string; version?: string }, error?: unknown): void;
}

const UNTRACED = (stored: string | null): AcceptTrace => ({ stored, end() {} });

export function startAcceptTrace(
  tracer: Tracer | undefined,
  traceparent: string | null,
): AcceptTrace {
  const parent = parseTraceparent(traceparent);
  const incoming = parent ? formatTraceparent(parent) : null;
  if (!tracer && !tracingEnabled()) return UNTRACED(incoming);
  const t = tracer ?? trace.getTracer('@sluice/gateway');
  const ctx = parent
    ? trace.setSpanContext(ROOT_CONTEXT, { ...parent, isRemote: true })
    : ROOT_CONTEXT;
  const span: Span = t.startSpan('sluice.accept', { kind: SpanKind.SERVER }, ctx);
  const sc = span.spanContext();
  const own = parseTraceparent(formatTraceparent(sc));
  return {
    stored: own ? formatTraceparent(own) : incoming,
    end(attributes, error) {
      span.setAttribute('sluice.job.kind', attributes.kind);
      if (attributes.jobId) span.setAttribute('sluice.job.id', attributes.jobId);
      if (attributes.version) span.setAttribute('sluice.job.version', attributes.version);
      if (error !== undefined) {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: String((error as Error)?.message ?? error),
        });
      }
      span.end();
    },
  };
}
