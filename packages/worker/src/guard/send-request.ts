// Sends one request over a fresh connection and says what happened in the terms of contracts
// `CALL_FAILURES`. Only this code can tell "never sent" from "sent": a failure before the socket
// connected (and, for https, finished its TLS handshake) is `never_sent`; after that every failure
// may have reached the provider. node:http rather than fetch, because fetch hides the phase.
// `agent: false` (no keep-alive): a reused idle socket that the server already closed would turn
// a request that never arrived into a "dropped after sending" — a false doubt costs a review.

import http from 'node:http';
import https from 'node:https';
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

function encodeBody(req: ProviderRequest): { bytes: Buffer | undefined; json: boolean } {
  const { body } = req;
  if (body === undefined) return { bytes: undefined, json: false };
  if (typeof body === 'string') return { bytes: Buffer.from(body), json: false };
  if (body instanceof Uint8Array) return { bytes: Buffer.from(body), json: false };
  return { bytes: Buffer.from(JSON.stringify(body)), json: true };
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

function parseBody(buf: Buffer, contentType: string | undefined): unknown {
  const text = buf.toString('utf8');
  if (contentType?.includes('json') && text.trim() !== '') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function flatHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** The answer's status in the terms of the recovery table. */
export function classifyStatus(status: number): CallFailure | undefined {
  if (status < 400) return undefined;
  // 410 Gone: what the call works on no longer exists (contracts `target_missing` → stale).
  if (status === 410) return 'target_missing';
  if (status < 500) return 'rejected';
  return 'server_error';
}

export function sendRequest(req: ProviderRequest, opts: SendOptions): Promise<SendResult> {
  const url = assertSendable(req);
  const { bytes, json } = encodeBody(req);
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
  if (json && !has('content-type')) headers['content-type'] = 'application/json';
  if (bytes && !has('content-length')) headers['content-length'] = String(bytes.length);
  const secure = url.protocol === 'https:';
  const maxBody = opts.maxBodyBytes ?? 16 * 1024 * 1024;

  return new Promise<SendResult>((resolve) => {
    let connected = false;
    let settled = false;
    const finish = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const fail = (afterConnect: CallFailure, message: string) =>
      finish({ ok: false, failure: connected ? afterConnect : 'never_sent', message });

    const request = (secure ? https : http).request(url, {
      method: req.method ?? (bytes ? 'POST' : 'GET'),
      headers,
      agent: false,
    });
    request.on('socket', (socket) => {
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        connected = true;
      });
    });
    request.on('finish', () => {
      if (connected) opts.onSent?.();
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      fail('connection_dropped', `${error.code ?? error.name}: ${error.message}`);
    });
    request.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBody) {
          res.destroy();
          fail('connection_dropped', `answer larger than ${maxBody} bytes`);
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (error) => fail('connection_dropped', `answer cut off: ${error.message}`));
      res.on('aborted', () => fail('connection_dropped', 'answer cut off'));
      res.on('end', () => {
        const answer: ProviderAnswer = {
          status: res.statusCode ?? 0,
          headers: flatHeaders(res.headers),
          body: parseBody(Buffer.concat(chunks), res.headers['content-type']),
        };
        const failure = classifyStatus(answer.status);
        if (failure === undefined) finish({ ok: true, answer });
        else finish({ ok: false, failure, message: `HTTP ${answer.status}`, answer });
      });
    });

    const timer = setTimeout(() => {
      fail('timeout', `no answer within ${opts.timeoutMs} ms`);
      request.destroy();
    }, opts.timeoutMs);
    const onAbort = () => {
      fail('connection_dropped', 'aborted by the attempt');
      request.destroy();
    };
    if (opts.signal?.aborted) {
      // Never started: nothing left this process.
      finish({ ok: false, failure: 'never_sent', message: 'aborted before sending' });
      request.destroy();
      return;
    }
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    request.end(bytes);
  });
}
