// Restate 1.7 (a durable-execution server with its own replicated log), what the parent and its
// children share.
export const RESTATE_SERVICE = 'bench';
export const RESTATE_HANDLER = 'run';
/** One-way invocation through the ingress: durably accepted, then pushed to a worker. */
export const RESTATE_SEND_PATH = `/${RESTATE_SERVICE}/${RESTATE_HANDLER}/send`;

export interface RestateChildConfig {
  /** The port the worker's HTTP/2 endpoint listens on (registered as a deployment). */
  endpointPort: number;
  /** The server's ingress, for the latency producer. */
  ingressUrl: string;
}

export function parseRestateConfig(config: Record<string, unknown>): RestateChildConfig {
  const { endpointPort, ingressUrl } = config;
  if (typeof endpointPort !== 'number' || typeof ingressUrl !== 'string')
    throw new Error(`bad Restate child config: ${JSON.stringify(config)}`);
  return { endpointPort, ingressUrl };
}
