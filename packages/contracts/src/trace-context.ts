// W3C trace context (`traceparent`) as plain strings: what the client sends with a submit, the
// gateway stores on the job row and the worker continues. Parsing and formatting only; the spans
// themselves are OpenTelemetry's (`@opentelemetry/api` in the Node packages and the client).

/** `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`, lowercase, ids not all zero. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

export interface TraceParent {
  readonly traceId: string;
  readonly spanId: string;
  /** Bit 0: sampled. */
  readonly traceFlags: number;
}

/** The parts of a valid `traceparent`, or undefined (an invalid header is ignored, per W3C). */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  if (typeof value !== 'string' || value.length !== 55) return undefined;
  const m = TRACEPARENT.exec(value);
  if (!m) return undefined;
  const [, traceId, spanId, flags] = m as unknown as [string, string, string, string];
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

export function formatTraceparent(t: TraceParent): string {
  return `00-${t.traceId}-${t.spanId}-${(t.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}
