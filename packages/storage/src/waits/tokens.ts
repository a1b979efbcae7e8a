// Approval tokens, the storage half. A token is 32 random bytes the job hands to a person or a
// webhook; only its sha256 is stored, with the tenant, the job and the event a completion sends.
// Completing it is ONE transaction: the token row moves open → used (compare-and-set, so a
// replay or a race finds it used and changes nothing), and the event is sent to the job as a
// signal whose id derives from the token — the same write-then-check as `jobs.signal`.

import { TOKEN_STATUSES, type TokenStatus } from '@sluice/contracts';
import type { Db, SluiceDatabase } from '../database.js';
import { isoNow } from '../json.js';
import { sendSignal, type SignalAnswer } from './signals.js';
import { inTransaction, lockJob } from './wait-rows.js';

export interface TokenRow {
  tenantId: string;
  jobId: string;
  event: string;
  status: TokenStatus;
  expiresAt: string;
  usedAt: string | null;
}

export interface CreateTokenRequest {
  tokenHash: string;
  jobId: string;
  /** The token's key in the run: a replay finds the token it made. */
  tokenKey: string;
  /** The creating attempt's epoch: a zombie creates no token. */
  epoch: number;
  event: string;
  expiresAt: string;
}

export type CreateTokenAnswer =
  | { kind: 'stored'; expiresAt: string }
  /** An earlier run made this token: its hash is all there is, so no token comes back. */
  | { kind: 'exists'; expiresAt: string }
  | { kind: 'fenced' };

/** Stores a new token's hash; 'fenced' when the attempt no longer holds the job. */
export async function createTokenRow(
  database: SluiceDatabase,
  req: CreateTokenRequest,
  now = Date.now(),
): Promise<CreateTokenAnswer> {
  return inTransaction(database, async (tx) => {
    const job = await lockJob(tx, req.jobId);
    if (!job || job.state !== 'running' || job.epoch !== req.epoch) return { kind: 'fenced' };
    const prior = await tx
      .selectFrom('job_tokens')
      .select('expires_at')
      .where('job_id', '=', job.id)
      .where('token_key', '=', req.tokenKey)
      .executeTakeFirst();
    if (prior) return { kind: 'exists', expiresAt: prior.expires_at };
    await tx
      .insertInto('job_tokens')
      .values({
        token_hash: req.tokenHash,
        tenant_id: job.tenantId,
        job_id: job.id,
        token_key: req.tokenKey,
        event: req.event,
        status: 'open',
        expires_at: req.expiresAt,
        created_at: isoNow(now),
        used_at: null,
      })
      .execute();
    return { kind: 'stored', expiresAt: req.expiresAt };
  });
}

/** The token's row with its status as of `now` (an open token past its time reads expired). */
export async function getToken(
  db: Db,
  tokenHash: string,
  now = Date.now(),
): Promise<TokenRow | undefined> {
  const r = await db
    .selectFrom('job_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!r) return undefined;
  const expired = r.status === 'open' && Date.parse(r.expires_at) <= now;
  return {
    tenantId: r.tenant_id,
    jobId: r.job_id,
    event: r.event,
    status: expired ? 'expired' : (r.status as TokenStatus),
    expiresAt: r.expires_at,
    usedAt: r.used_at,
  };
}

export type CompleteTokenAnswer =
  | { kind: 'not_found' }
  | { kind: 'refused'; status: Exclude<TokenStatus, 'open'> }
  | { kind: 'completed'; signal: Extract<SignalAnswer, { kind: 'stored' }> }
  | { kind: 'job_ended' };

/**
 * Uses the token once: sends its event with `payload` to its job, inside `tx` (the caller's, so
 * the dispatch path stages the resumed job in it).
 */
export async function completeToken(
  tx: Db,
  tokenHash: string,
  payload: unknown,
  now = Date.now(),
  /** Which statuses a completion may use (only `open`; a seam for fault-injection tests). */
  usable: (status: TokenStatus) => boolean = (status) => status === 'open',
): Promise<CompleteTokenAnswer> {
  const token = await getToken(tx, tokenHash, now);
  if (!token) return { kind: 'not_found' };
  if (!usable(token.status) || token.status === 'expired')
    return { kind: 'refused', status: token.status === 'open' ? 'used' : token.status };
  // Compare-and-set on the status read: of two completions racing, one moves the row.
  const used = await tx
    .updateTable('job_tokens')
    .set({ status: 'used', used_at: isoNow(now) })
    .where('token_hash', '=', tokenHash)
    .where('status', 'in', TOKEN_STATUSES.filter(usable))
    .executeTakeFirst();
  if (Number(used.numUpdatedRows) === 0) return { kind: 'refused', status: 'used' };
  const signal = await sendSignal(
    tx,
    {
      tenantId: token.tenantId,
      jobId: token.jobId,
      name: token.event,
      payload,
      signalId: `token:${tokenHash.slice(0, 32)}`,
    },
    now,
  );
  if (signal.kind !== 'stored') return { kind: 'job_ended' };
  return { kind: 'completed', signal };
}
