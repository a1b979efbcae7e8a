// The guard's sender on Workers, where `fetch` is the only outgoing connection. fetch hides the
// connect phase, so this sender cannot prove that a failed request never left: every failure
// after the call started counts as `connection_dropped` (billing in doubt), never `never_sent`.
// That is the conservative side of the recovery table: an ambiguous call goes to review rather
// than being sent twice; a retry-safe one is retried either way. Only an abort before the
// request was handed to fetch is `never_sent`.

import type { ProviderAnswer, ProviderRequest } from './types.js';
import {
  assertSendable,
  classifyStatus,
  encodeBody,
  parseAnswerBody,
  type SendOptions,
  type SendResult,
} from './request-shape.js';

export async function sendFetch(req: ProviderRequest, opts: SendOptions): Promise<SendResult> {
  const url = assertSendable(req);
  const { bytes, json } = encodeBody(req);
  const headers = new Headers(req.headers ?? {});
  if (json && !headers.has('content-type')) headers.set('content-type', 'application/json');
  if (opts.signal?.aborted) {
    return { ok: false, failure: 'never_sent', message: 'aborted before sending' };
  }
  const maxBody = opts.maxBodyBytes ?? 16 * 1024 * 1024;
  const controller = new AbortController();
  const onAbort = () => controller.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('timeout'));
  }, opts.timeoutMs);
  try {
    let res: Response;
    try {
      res = await fetch(url, {
        method: req.method ?? (bytes ? 'POST' : 'GET'),
        headers,
        ...(bytes ? { body: bytes as Uint8Array<ArrayBuffer> } : {}),
        signal: controller.signal,
      });
    } catch (error) {
      if (timedOut) {
        return { ok: false, failure: 'timeout', message: `no answer within ${opts.timeoutMs} ms` };
      }
      return { ok: false, failure: 'connection_dropped', message: String(error) };
    }
    opts.onSent?.();
    let text: string;
    try {
      const body = new Uint8Array(await res.arrayBuffer());
      if (body.byteLength > maxBody) {
        return {
          ok: false,
          failure: 'connection_dropped',
          message: `answer larger than ${maxBody} bytes`,
        };
      }
      text = new TextDecoder().decode(body);
    } catch (error) {
      const failure = timedOut ? 'timeout' : 'connection_dropped';
      return { ok: false, failure, message: `answer cut off: ${String(error)}` };
    }
    const answerHeaders: Record<string, string> = {};
    res.headers.forEach((value, key) => {
      answerHeaders[key.toLowerCase()] = value;
    });
    const answer: ProviderAnswer = {
      status: res.status,
      headers: answerHeaders,
      body: parseAnswerBody(text, res.headers.get('content-type')),
    };
    const failure = classifyStatus(answer.status);
    if (failure === undefined) return { ok: true, answer };
    return { ok: false, failure, message: `HTTP ${answer.status}`, answer };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
