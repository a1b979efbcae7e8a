// With no OpenTelemetry SDK registered and no tracer given, tracing starts nothing: no span per
// attempt, and a provider request still carries the job's stored trace context (an invalid one
// is dropped), so the provider's side joins the submit's trace.
import { describe, expect, it } from 'vitest';
import { tracingEnabled } from '@sluice/contracts/tracing';
import { activeTracer, startCallTrace } from './attempt-trace.js';

const STORED = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const call = { name: 'c', callClass: 'ambiguous', provider: 'p', method: 'POST', url: 'http://x/' };

describe('tracing without an SDK', () => {
  it('is off: no tracer is chosen', () => {
    expect(tracingEnabled()).toBe(false);
    expect(activeTracer(undefined)).toBeUndefined();
  });

  it('sends the stored traceparent on, and nothing for an invalid one', () => {
    expect(startCallTrace(undefined, STORED, call).traceparent).toBe(STORED);
    expect(startCallTrace(undefined, null, call).traceparent).toBeUndefined();
    expect(startCallTrace(undefined, '00-zz-00-01', call).traceparent).toBeUndefined();
    expect(
      startCallTrace(undefined, STORED.replace(/-00f0[0-9a-f]+-/, `-${'0'.repeat(16)}-`), call)
        .traceparent,
    ).toBeUndefined();
  });
});
