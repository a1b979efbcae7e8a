// What a sender of provider requests answers, in the terms of contracts `CALL_FAILURES`, and the
// checks every sender shares. Runtime-neutral: the Node sender (`send-request.ts`, node:http, which
// can tell "never sent" apart) and the Workers sender (`send-fetch.ts`) both implement
// `SendRequest`; the guard takes one as a dependency and imports neither.

import type { CallFailure } from '@sluice/contracts';
import type { ProviderAnswer, ProviderRequest } from './types.js';

export type SendResult =
  | { ok: true; answer: ProviderAnswer }
  | {
      ok: false;
      failure: CallFailure;
      message: string;
      /** Set when the provider answered (4xx, 5xx). */
      answer?: ProviderAnswer | undefined;
    };

export interface SendOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** The request is handed to the connected socket (crash point, metrics). */
  onSent?: (() => void) | undefined;
  /** Largest answer body read (default 16 MiB); a larger one counts as a dropped answer. */
  maxBodyBytes?: number | undefined;
}

/** Sends one request over a connection the sender owns and says what happened. */
export type SendRequest = (req: ProviderRequest, opts: SendOptions) => Promise<SendResult>;

/** The request body as bytes (JSON for anything that is not a string or bytes). */
export function encodeBody(req: ProviderRequest): { bytes: Uint8Array | undefined; json: boolean } {
  const { body } = req;
  if (body === undefined) return { bytes: undefined, json: false };
  if (typeof body === 'string') return { bytes: new TextEncoder().encode(body), json: false };
  if (body instanceof Uint8Array) return { bytes: body, json: false };
  return { bytes: new TextEncoder().encode(JSON.stringify(body)), json: true };
}

/** Throws for a request that cannot be sent at all (checked before the ledger row is written). */
export function assertSendable(req: ProviderRequest): URL {
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    throw new TypeError(`provider request url is not a URL: ${String(req.url)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`provider request url must be http: or https:, got ${url.protocol}`);
  }
  encodeBody(req); // throws for a body JSON cannot encode (cycles, BigInt)
  return url;
}

/** The answer's status in the terms of the recovery table. */
export function classifyStatus(status: number): CallFailure | undefined {
  if (status < 400) return undefined;
  // 410 Gone: what the call works on no longer exists (contracts `target_missing` → stale).
  if (status === 410) return 'target_missing';
  if (status < 500) return 'rejected';
  return 'server_error';
}

/** A JSON body parsed, anything else as text. */
export function parseAnswerBody(text: string, contentType: string | null | undefined): unknown {
  if (contentType?.includes('json') && text.trim() !== '') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}
