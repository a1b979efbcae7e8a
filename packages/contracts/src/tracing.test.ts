import { trace, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { tracingEnabled } from './tracing.js';

afterEach(() => trace.disable());

describe('tracingEnabled', () => {
  it('is false with no provider registered, true once one is, false again after disable', () => {
    expect(tracingEnabled()).toBe(false);
    const tracer = trace.getTracer('unregistered') as Tracer;
    const provider: TracerProvider = { getTracer: () => tracer };
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    expect(tracingEnabled()).toBe(true);
    trace.disable();
    expect(tracingEnabled()).toBe(false);
  });
});
