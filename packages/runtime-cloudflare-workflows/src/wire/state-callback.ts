// The authenticated state callback: how a Worker (a Workflow instance dispatched by a Node
// gateway) reports its job's state and events into the gateway's database. One report is one
// fenced attempt write (the same shape every runtime stores: the row as the writer last knew it,
// the row after, the events), so the gateway applies it under the same epoch fence as any other
// write: a report of a stale attempt, or a replay of an old report, changes nothing.
//
// Signing: HMAC-SHA-256 over `<timestamp>.<body>` with a secret both sides share, sent as
// `x-sluice-timestamp` (ms since the epoch) and `x-sluice-signature` (`v1=<hex>`). The gateway
// refuses a timestamp outside its window before it reads anything else. WebCrypto only, so the
// Worker (workerd) and the gateway (Node) sign with the same code.

import { z } from 'zod';
import { JOB_STATES, JobErrorSchema, JobEvent, JobWaiting } from '@sluice/contracts';

export const STATE_CALLBACK_HEADERS = {
  timestamp: 'x-sluice-timestamp',
  signature: 'x-sluice-signature',
} as const;

/** Default path of the callback route on the gateway. */
export const STATE_CALLBACK_PATH = '/v1/runtime/state';

/** How far a report's timestamp may be from the gateway's clock (default 5 minutes). */
export const STATE_CALLBACK_WINDOW_MS = 5 * 60_000;

const Iso = z.string().max(40);

export const StateReport = z
  .object({
    id: z.string().min(1).max(100),
    tenantId: z.string().min(1).max(100),
    kind: z.string().min(1).max(200),
    fence: z
      .object({
        epoch: z.number().int().min(0),
        lastSeq: z.number().int().min(0),
        // `scheduled`: a run that slept until the due time starts its job (`delaysInRun`).
        state: z.enum(['scheduled', 'queued', 'running']),
      })
      .strict(),
    state: z.enum(JOB_STATES),
    epoch: z.number().int().min(0),
    attempts: z.number().int().min(0),
    attemptId: z.string().max(100).nullable(),
    leaseUntil: Iso.nullable(),
    leaseOwner: z.string().max(200).nullable(),
    output: z.unknown().optional(),
    error: JobErrorSchema.nullable().optional(),
    reason: z.string().max(200).nullable().optional(),
    events: z.array(JobEvent).max(1000),
    units: z
      .array(
        z
          .object({
            unitKey: z.string().min(1).max(200),
            result: z.unknown().optional(),
            assetKey: z.string().max(1024).nullable().optional(),
          })
          .strict(),
      )
      .max(1000)
      .optional(),
    /** The limit that held the job (a hold's write), or null: any other write clears it. */
    waiting: JobWaiting.nullable().optional(),
  })
  .strict();
export type StateReport = z.infer<typeof StateReport>;

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(message));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The headers that sign `body` (the exact bytes sent) at `timestamp`. */
export async function signStateReport(
  secret: string,
  body: string,
  timestamp: number,
): Promise<Record<string, string>> {
  return {
    [STATE_CALLBACK_HEADERS.timestamp]: String(timestamp),
    [STATE_CALLBACK_HEADERS.signature]: `v1=${await hmacHex(secret, `${timestamp}.${body}`)}`,
  };
}

export type SignatureCheck = 'ok' | 'missing' | 'stale' | 'bad_signature';

/** Checks a report's headers against its body; compares in constant time. */
export async function verifyStateReport(opts: {
  secret: string;
  body: string;
  timestamp: string | undefined;
  signature: string | undefined;
  now: number;
  windowMs?: number | undefined;
}): Promise<SignatureCheck> {
  if (!opts.timestamp || !opts.signature) return 'missing';
  if (!/^\d{1,16}$/.test(opts.timestamp)) return 'stale';
  const ts = Number(opts.timestamp);
  if (Math.abs(opts.now - ts) > (opts.windowMs ?? STATE_CALLBACK_WINDOW_MS)) return 'stale';
  const expected = `v1=${await hmacHex(opts.secret, `${opts.timestamp}.${opts.body}`)}`;
  if (expected.length !== opts.signature.length) return 'bad_signature';
  let diff = 0;
  for (let i = 0; i < expected.length; i++)
    diff |= expected.charCodeAt(i) ^ opts.signature.charCodeAt(i);
  return diff === 0 ? 'ok' : 'bad_signature';
}
