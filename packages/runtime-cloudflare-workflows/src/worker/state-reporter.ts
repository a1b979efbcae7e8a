// The Worker's end of the authenticated state callback (`wire/state-callback.ts`): sends
// one attempt write of a job to the Node gateway that dispatched it, signed with the shared
// secret, over `fetch` (no Node built-in: this runs in workerd). The gateway applies it under
// the epoch fence; its answer says whether it landed.

import { SluiceError } from '@sluice/contracts';
import { signStateReport, StateReport, STATE_CALLBACK_PATH } from '../wire/index.js';

export interface StateReporterOptions {
  /** The gateway's base URL (`https://gateway.example.com`). */
  gatewayUrl: string;
  /** The secret shared with the gateway (its `stateCallback.secret`). */
  secret: string;
  path?: string | undefined;
  /** Tests: the clock the timestamp comes from. */
  now?: (() => number) | undefined;
}

export interface StateReporter {
  /**
   * 'applied', or 'fenced' when the gateway's row moved on (a stale attempt: stop writing).
   * Throws a typed error otherwise: UNAVAILABLE (5xx, no answer: retry the step), others final.
   */
  report(write: StateReport): Promise<'applied' | 'fenced'>;
}

export function createStateReporter(opts: StateReporterOptions): StateReporter {
  const url = new URL(opts.path ?? STATE_CALLBACK_PATH, opts.gatewayUrl).toString();
  const now = opts.now ?? Date.now;
  return {
    async report(write) {
      // Validated here too: a report the gateway would refuse is a bug on this side.
      const body = JSON.stringify(StateReport.parse(write));
      const headers = await signStateReport(opts.secret, body, now());
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body,
        });
      } catch (error) {
        throw new SluiceError('UNAVAILABLE', `state callback to ${url} failed`, { cause: error });
      }
      const text = await res.text();
      if (res.ok) return 'applied';
      if (res.status === 409) return 'fenced';
      const code =
        res.status >= 500 ? 'UNAVAILABLE' : res.status === 401 ? 'UNAUTHORIZED' : 'BAD_REQUEST';
      throw new SluiceError(code, `state callback answered ${res.status}: ${text.slice(0, 200)}`);
    },
  };
}
