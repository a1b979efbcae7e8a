// The accept span with no OpenTelemetry SDK registered: nothing is started, the caller's valid
// traceparent is stored as it came (the worker continues it), an invalid one is ignored (W3C).
import { describe, expect, it } from 'vitest';
import { tracingEnabled } from '@sluice/contracts/tracing';
import { startAcceptTrace } from './tracing.js';

const INCOMING = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('accept trace without an SDK', () => {
  it('stores the caller context as it came, or nothing when it is invalid', () => {
    expect(tracingEnabled()).toBe(false);
    expect(startAcceptTrace(undefined, INCOMING).stored).toBe(INCOMING);
    expect(startAcceptTrace(undefined, INCOMING.toUpperCase()).stored).toBeNull();
    expect(startAcceptTrace(undefined, `${INCOMING}-extra`).stored).toBeNull();
    expect(startAcceptTrace(undefined, null).stored).toBeNull();
  });
});
