// Who may have a credential looked up, after failed authentications. Failures are counted per
// client address and per presented secret (a SHA-256 of the credential exactly as sent), never
// per key id: the id is the public part of a key (`sk_<id>_…`), so counting by it would let
// anyone who knows an id lock its owner out. Past either limit the request is refused with
// RATE_LIMITED before any lookup, so a guesser gets 429s and its guesses stop being checked —
// also one that rotates through many key ids from one address (the address counts them all),
// or that replays one secret from many addresses (the secret counts them).
//
// A request presenting a secret this gateway verified within the last 24 h is always looked up,
// even from a throttled address: it is not a guess (guessing it means knowing it), so a key's
// owner keeps working while someone else guesses at its id, also behind the guesser's own
// address (NAT). A secret never verified by this process (a new key, or after a restart) from a
// throttled address waits like any other until the address's bucket refills.
//
// A lookup takes its tokens before it runs and gives them back once the secret verifies, so a
// burst of concurrent guesses cannot all start before the first one has failed. Requests
// presenting a secret already being looked up ride on that lookup's tokens (on Node they share
// the lookup itself, key-cache.ts), so a client's burst of first calls with a new key is never
// throttled; only more distinct never-verified secrets at one instant from one address than the
// address's burst wait.
//
//   const ticket = await throttle.begin(apiKey, address);
//   if (ticket.waitMs > 0) return rateLimited(ticket.waitMs, 'too many failed authentications');
//   ticket.settle((await auth.verify(apiKey)) ? 'verified' : 'refused');

import type { Rate } from '../limits/token-bucket.js';
import { createTokenBuckets } from '../limits/token-bucket.js';

export interface FailedAuthLimits {
  failedAuthPerAddress: Rate;
  failedAuthPerSecret: Rate;
}

/** How a lookup ended: the secret verified, was refused, or the lookup itself failed. */
export type LookupOutcome = 'verified' | 'refused' | 'unknown';

export interface LookupTicket {
  /** 0: look the credential up now; otherwise how long the caller must wait (RATE_LIMITED). */
  readonly waitMs: number;
  /** Records the lookup's outcome (once; a refusal keeps the tokens it took). */
  settle(outcome: LookupOutcome): void;
}

export interface FailedAuthThrottle {
  begin(credential: string | null, address: string | null): Promise<LookupTicket>;
}

/** How long a verified secret stays exempt from the throttle, and how many are remembered. */
const KNOWN_FOR_MS = 24 * 60 * 60 * 1000;
const KNOWN_MAX = 10_000;

async function digest(credential: string): Promise<string> {
  const bytes = new TextEncoder().encode(credential);
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(hash, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function createFailedAuthThrottle(limits: FailedAuthLimits): FailedAuthThrottle {
  const byAddress = createTokenBuckets(limits.failedAuthPerAddress);
  const bySecret = createTokenBuckets(limits.failedAuthPerSecret);
  // secret digest -> until when it is exempt (insertion order: oldest first)
  const known = new Map<string, number>();

  function isKnown(secret: string, now: number): boolean {
    const until = known.get(secret);
    if (until === undefined) return false;
    if (until > now) return true;
    known.delete(secret);
    return false;
  }

  function remember(secret: string, now: number): void {
    known.delete(secret);
    if (known.size >= KNOWN_MAX) {
      const oldest = known.keys().next();
      if (!oldest.done) known.delete(oldest.value);
    }
    known.set(secret, now + KNOWN_FOR_MS);
  }

  // secret digest -> lookups of it in flight (the first took the tokens; the rest ride on it)
  const inflight = new Map<string, number>();

  function countFailure(secret: string | null, address: string | null): void {
    if (address !== null) byAddress.take(address);
    if (secret !== null) bySecret.take(secret);
  }

  function track(secret: string | null, onSettle: (outcome: LookupOutcome) => void): LookupTicket {
    if (secret !== null) inflight.set(secret, (inflight.get(secret) ?? 0) + 1);
    let settled = false;
    return {
      waitMs: 0,
      settle(outcome) {
        if (settled) return;
        settled = true;
        if (secret !== null) {
          const left = (inflight.get(secret) ?? 1) - 1;
          if (left > 0) inflight.set(secret, left);
          else inflight.delete(secret);
        }
        onSettle(outcome);
      },
    };
  }

  return {
    async begin(credential, address) {
      const secret = credential === null ? null : await digest(credential);
      // From here on nothing awaits: the check and the take are one step.
      const now = Date.now();
      if (secret !== null && isKnown(secret, now)) {
        return track(secret, (outcome) => {
          if (outcome !== 'refused') return;
          // Revoked or expired since: from now on it is counted like any other failure.
          known.delete(secret);
          countFailure(secret, address);
        });
      }
      if (secret !== null && inflight.has(secret)) {
        // The same secret is being looked up already (a client's burst of first calls): this
        // one needs no tokens of its own, and counts only if the secret is refused.
        return track(secret, (outcome) => {
          if (outcome === 'refused') countFailure(secret, address);
        });
      }
      const waitMs = Math.max(
        address === null ? 0 : byAddress.peek(address, now),
        secret === null ? 0 : bySecret.peek(secret, now),
      );
      if (waitMs > 0) return { waitMs, settle() {} };
      if (address !== null) byAddress.take(address, now);
      if (secret !== null) bySecret.take(secret, now);
      return track(secret, (outcome) => {
        if (outcome === 'refused') return;
        if (address !== null) byAddress.give(address);
        if (secret !== null) bySecret.give(secret);
        if (outcome === 'verified' && secret !== null) remember(secret, Date.now());
      });
    },
  };
}
