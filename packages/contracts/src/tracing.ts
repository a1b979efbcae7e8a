// Whether an OpenTelemetry SDK is registered, for the gateway and the worker alike: with none,
// `@opentelemetry/api` is a no-op and they skip the tracing work entirely. A subpath of its own
// so the contracts' main entry keeps no dependency; `@opentelemetry/api` is a peer, provided by
// the gateway and worker that import this.

import { ProxyTracerProvider, trace } from '@opentelemetry/api';

const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/** True once an app registered a tracer provider (else every span is a no-op). */
export function tracingEnabled(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}
