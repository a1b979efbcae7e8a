// A starting command waits for the services it needs (the database, Redis) for a bounded window
// (`--connect-wait-ms`, default 30 s), so a container that starts before its database does
// not crash-loop, and a wrong address ends in exit code 4 instead of retrying forever. A banner
// says what it waits for as soon as the first attempt fails; errors that waiting cannot fix
// (wrong password, no such database) end the wait at once.

import { setTimeout as sleep } from 'node:timers/promises';
import { SluiceError } from '@sluice/contracts';

export interface ServiceProbe {
  /** What a user would call it: `PostgreSQL at db:5432`, `Redis at 127.0.0.1:6379`. */
  label: string;
  /** Resolves once the service answers; each attempt is bounded by the probe itself. */
  attempt(): Promise<void>;
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was dropped (reset)',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS lookup failed)',
  EPIPE: 'the connection was dropped',
};

/** Why an attempt failed, when waiting may help (the service is not up yet); else undefined. */
export function retryableReason(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let e: unknown = error;
  while (typeof e === 'object' && e !== null && !seen.has(e)) {
    seen.add(e);
    const { code, message, errors } = e as { code?: unknown; message?: unknown; errors?: unknown };
    if (typeof code === 'string' && NETWORK_REASONS[code]) return NETWORK_REASONS[code];
    // PostgreSQL is starting up or shutting down (SQLSTATE 57P03).
    if (code === '57P03') return 'the server is starting up';
    const text = typeof message === 'string' ? message : '';
    // pg's own wording, without a code: its connect timeout, and a socket closed mid-handshake.
    if (/connection timeout|timeout expired/i.test(text)) return 'connection timed out';
    if (/Connection terminated unexpectedly/.test(text))
      return 'the connection was dropped (Connection terminated unexpectedly)';
    e = Array.isArray(errors) && errors.length > 0 ? errors[0] : (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export async function waitForService(
  probe: ServiceProbe,
  wait: { ms: number; name: string },
  out: (line: string) => void,
): Promise<void> {
  const deadline = Date.now() + wait.ms;
  let announced = false;
  for (;;) {
    try {
      await probe.attempt();
      if (announced) out(`sluice: ${probe.label} answered`);
      return;
    } catch (error) {
      const why = retryableReason(error);
      if (why === undefined) throw error;
      if (!announced) {
        out(`sluice: waiting up to ${wait.ms} ms for ${probe.label} (${why})…`);
        announced = true;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new SluiceError(
          'UNAVAILABLE',
          `cannot reach ${probe.label} within ${wait.ms} ms (${wait.name}): ${why}`,
        );
      }
      await sleep(Math.min(500, left));
    }
  }
}
