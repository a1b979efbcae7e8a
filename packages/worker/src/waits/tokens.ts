// `ctx.createToken`: 32 random bytes as base64url; only the sha256 goes to the database (with
// the job, the event a completion sends and the expiry), in a transaction fenced by the
// attempt's epoch. The token itself exists only in the run that made it: a replay gets the
// handle without it (`token: null`), so hand the token on (a message, a page) in the same stage.

import {
  MAX_TOKEN_TTL_MS,
  NonRetriableError,
  SluiceError,
  type AnyJobDefinition,
} from '@sluice/contracts';
import { createTokenRow, type SluiceDatabase } from '@sluice/storage/d1';
import type { TokenHandle } from './types.js';
import { untilMs } from './until-ms.js';

/** The token's public path on the gateway. */
export const tokenPath = (token: string): string => `/v1/tokens/${token}`;

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** sha256 hex of the token (WebCrypto: the same code runs in Node and workerd). */
export async function hashToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export interface TokensDeps {
  database: SluiceDatabase;
  definition: AnyJobDefinition;
  job: { id: string; epoch: number };
  assertCapable(): void;
  keyOf(base: string, key: string | undefined): string;
  onFenced(): void;
  flush(): Promise<void>;
  now?: (() => number) | undefined;
}

export function createTokens(deps: TokensDeps) {
  const now = deps.now ?? Date.now;
  return {
    async create(opts: { event: string; expiresIn: number | string; key?: string }) {
      deps.assertCapable();
      if (!deps.definition.events?.[opts.event])
        throw new NonRetriableError(`event "${opts.event}" is not declared in the job's events`);
      const t = now();
      const at = untilMs(opts.expiresIn, t, 'expiresIn');
      if (at - t > MAX_TOKEN_TTL_MS || at <= t)
        throw new NonRetriableError('expiresIn: a token lives more than 0 and at most 30 days');
      const token = base64url(crypto.getRandomValues(new Uint8Array(32)));
      // The job must be `running` at this epoch in the database before the fenced insert.
      await deps.flush();
      const answer = await createTokenRow(deps.database, {
        tokenHash: await hashToken(token),
        jobId: deps.job.id,
        tokenKey: deps.keyOf(`token:${opts.event}`, opts.key),
        epoch: deps.job.epoch,
        event: opts.event,
        expiresAt: new Date(at).toISOString(),
      });
      switch (answer.kind) {
        case 'stored':
          return { expiresAt: answer.expiresAt, token, path: tokenPath(token) } as TokenHandle;
        case 'exists':
          return { expiresAt: answer.expiresAt, token: null, path: null } as TokenHandle;
        case 'fenced':
          deps.onFenced();
          throw new SluiceError('LEASE_LOST', 'this attempt no longer holds the job');
      }
    },
  };
}
