// Sends one request over a fresh connection and says what happened in the terms of contracts
// `CALL_FAILURES`. Only this code can tell "never sent" from "sent": a failure before the socket
// connected (and, for https, finished its TLS handshake) is `never_sent`; after that every failure
// may have reached the provider. node:http rather than fetch, because fetch hides the phase.
// `agent: false` (no keep-alive): a reused idle socket that the server already closed would turn
// a request that never arrived into a "dropped after sending" — a false doubt costs a review.

import http from 'node:http';
import https from 'node:https';
import type { CallFailure } from '@sluice/contracts';
import {
  assertSendable,
  classifyStatus,
  encodeBody,
  parseAnswerBody,
  type SendOptions,
  type SendResult,
} from './request-shape.js';
import type { ProviderAnswer, ProviderRequest } from './types.js';

export { assertSendable, classifyStatus } from './request-shape.js';
export type { SendOptions, SendResult } from './request-shape.js';

function flatHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
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
          body: parseAnswerBody(
            Buffer.concat(chunks).toString('utf8'),
            res.headers['content-type'],
          ),
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
