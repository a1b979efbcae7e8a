// The `traceparent` a submit carries: the active OpenTelemetry span's context when the app has
// one (through its registered propagator, else formatted from the span), or a new trace id so
// the job's gateway and worker spans still share one trace. `@opentelemetry/api` is a no-op
// until an app registers an SDK: then this costs a context lookup and a few random bytes.

import { context, propagation, trace } from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent } from '@sluice/contracts/wire';

function randomHex(bytes: number): string {
  const buf = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(buf);
  let out = '';
  for (const b of buf) out += b.toString(16).padStart(2, '0');
  return out;
}

export function submitTraceparent(): string {
  const active = context.active();
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  if (parseTraceparent(carrier.traceparent)) return carrier.traceparent as string;
  const span = trace.getSpanContext(active);
  const fromSpan = span && formatTraceparent(span);
  if (parseTraceparent(fromSpan)) return fromSpan as string;
  // A new root. Sampled, so a gateway whose sampler follows its parent records the job.
  return formatTraceparent({ traceId: randomHex(16), spanId: randomHex(8), traceFlags: 1 });
}
