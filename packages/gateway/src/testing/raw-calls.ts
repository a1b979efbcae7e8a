// Raw transport calls for the security suites: one tRPC procedure over plain HTTP (GET for a
// query, POST for a mutation), over SSE (a subscription on /trpc), or over a WebSocket speaking
// tRPC's wire protocol — no client library in between, so no retry or reconnect hides an answer.
// Each answers the outcome a client would see: the tRPC error code, or 'ADMITTED' when the call
// got past admission (it may still be a 400 or 404: that is the procedure's answer). Each can be
// sent from a chosen loopback address (`from`: any 127.x.y.z reaches a listener on 127.0.0.1), so
// a test can play a client at another address than its neighbour.

import { request } from 'node:http';
import { Readable } from 'node:stream';
import WebSocket from 'ws';

export type Outcome = 'ADMITTED' | 'UNAUTHORIZED' | 'FORBIDDEN' | 'TOO_MANY_REQUESTS';

export interface RawAnswer {
  outcome: Outcome | string;
  status: number;
  body: string;
  /** The wait a refusal asks for: HTTP's Retry-After (in ms), or a WebSocket error's data. */
  retryAfterMs?: number | undefined;
}

type FetchLike = (
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<Response>;

/** `fetch` sent from `localAddress` (node:http can bind the client side; fetch cannot). */
export function fetchFrom(localAddress: string): FetchLike {
  return (url, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const req = request(url, {
        method: init.method ?? 'GET',
        headers: init.headers,
        localAddress,
        signal: init.signal,
        agent: false,
      });
      req.once('response', (res) => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
        }
        const body = Readable.toWeb(res) as ReadableStream<Uint8Array>;
        resolve(new Response(body, { status: res.statusCode ?? 0, headers }));
      });
      req.once('error', reject);
      req.end(init.body);
    });
}

const fetcher = (from: string | undefined): FetchLike =>
  from === undefined ? (url, init) => fetch(url, init) : fetchFrom(from);

function retryAfterOf(res: Response): number | undefined {
  const header = res.headers.get('retry-after');
  return header === null ? undefined : Number(header) * 1000;
}

function codeOfJson(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { error?: { data?: { code?: string } } }).error?.data?.code;
  } catch {
    return undefined;
  }
}

/** Input sent as this exact JSON text (for inputs JSON.stringify cannot build, e.g. very deep). */
export class RawJson {
  constructor(readonly text: string) {}
}

const json = (input: unknown) => (input instanceof RawJson ? input.text : JSON.stringify(input));

const ADMISSION = new Set(['UNAUTHORIZED', 'FORBIDDEN', 'TOO_MANY_REQUESTS']);

function outcomeOf(code: string | undefined): Outcome | string {
  return code && ADMISSION.has(code) ? code : 'ADMITTED';
}

export async function httpCall(
  url: string,
  path: string,
  type: 'query' | 'mutation',
  key: string | null,
  input: unknown,
  from?: string,
): Promise<RawAnswer> {
  const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
  const send = fetcher(from);
  const res =
    type === 'query'
      ? await send(`${url}/trpc/${path}?input=${encodeURIComponent(json(input))}`, { headers })
      : await send(`${url}/trpc/${path}`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: json(input),
        });
  const body = await res.text();
  return {
    outcome: outcomeOf(codeOfJson(body)),
    status: res.status,
    body,
    retryAfterMs: retryAfterOf(res),
  };
}

export interface SseStream {
  /** The response's status and headers (a refusal before the stream starts is not a 200). */
  readonly response: Response;
  /** Everything received so far. */
  text(): string;
  /** Resolves when the server ends the response (or rejects with the fetch error). */
  readonly ended: Promise<void>;
  close(): void;
}

/** Opens a subscription over SSE and keeps reading. */
export async function openSse(
  url: string,
  path: string,
  key: string | null,
  input: unknown,
  from?: string,
): Promise<SseStream> {
  const ac = new AbortController();
  const res = await fetcher(from)(
    `${url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`,
    {
      headers: {
        accept: 'text/event-stream',
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
      },
      signal: ac.signal,
    },
  );
  let text = '';
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  ended.catch(() => {});
  return { response: res, text: () => text, ended, close: () => ac.abort() };
}

const SSE_ERROR = /event: serialized-error\ndata: (.*)\n/;

/**
 * A subscription over SSE: a refusal answered before the stream (its status and JSON error), or
 * the outcome within `windowMs` of a started stream (no error event by then: admitted).
 */
export async function sseCall(
  url: string,
  path: string,
  key: string | null,
  input: unknown,
  windowMs = 400,
  from?: string,
): Promise<RawAnswer> {
  const stream = await openSse(url, path, key, input, from);
  const res = stream.response;
  if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await stream.ended.catch(() => {});
    const body = stream.text();
    return {
      outcome: outcomeOf(codeOfJson(body)),
      status: res.status,
      body,
      retryAfterMs: retryAfterOf(res),
    };
  }
  const deadline = Date.now() + windowMs;
  while (Date.now() < deadline && !SSE_ERROR.test(stream.text())) {
    await Promise.race([stream.ended, new Promise((r) => setTimeout(r, 20))]);
  }
  stream.close();
  const m = SSE_ERROR.exec(stream.text());
  const code = m ? (JSON.parse(m[1]!) as { data?: { code?: string } }).data?.code : undefined;
  return { outcome: outcomeOf(code), status: res.status, body: stream.text() };
}

export interface RawSocket {
  readonly socket: WebSocket;
  /** Every message received, parsed. */
  readonly messages: unknown[];
  send(message: unknown): void;
  /** Resolves with the first message matching `pick` (or undefined after `timeoutMs`). */
  waitFor(pick: (m: unknown) => boolean, timeoutMs?: number): Promise<unknown>;
  readonly closed: Promise<number>;
  /** The close code and reason the server sent. */
  readonly closedWith: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** A WebSocket to /ws that has sent `{ apiKey }` as its connection params. */
export async function openRawSocket(
  url: string,
  key: string | null,
  from?: string,
): Promise<RawSocket> {
  const socket = new WebSocket(
    `${url.replace(/^http/, 'ws')}/ws?connectionParams=1`,
    from === undefined ? {} : { localAddress: from },
  );
  const messages: unknown[] = [];
  const listeners = new Set<() => void>();
  socket.on('message', (data: Buffer) => {
    try {
      messages.push(JSON.parse(data.toString()));
    } catch {
      messages.push(data.toString());
    }
    for (const l of [...listeners]) l();
  });
  const closedWith = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason: Buffer) => resolve({ code, reason: reason.toString() })),
  );
  const closed = closedWith.then((c) => c.code);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(
    JSON.stringify({ method: 'connectionParams', data: key === null ? {} : { apiKey: key } }),
  );
  return {
    socket,
    messages,
    send: (m) => socket.send(JSON.stringify(m)),
    waitFor(pick, timeoutMs = 2000) {
      const found = messages.find(pick);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve) => {
        const done = (value: unknown) => {
          clearTimeout(timer);
          listeners.delete(check);
          resolve(value);
        };
        const check = () => {
          const m = messages.find(pick);
          if (m !== undefined) done(m);
        };
        const timer = setTimeout(() => done(undefined), timeoutMs);
        listeners.add(check);
        void closed.then(() => setTimeout(check, 10));
      });
    },
    closed,
    closedWith,
    close: () => socket.terminate(),
  };
}

interface WireError {
  id?: unknown;
  error?: { data?: { code?: string; retryAfterMs?: number } };
  result?: { type?: string };
}

/**
 * A WebSocket login (`connectionParams`) followed by one query: admitted, or the refusal with
 * its retry hint, and how the server closed the socket (`close`: undefined while it is open).
 */
export async function wsLogin(
  url: string,
  key: string | null,
  from?: string,
): Promise<RawAnswer & { close?: { code: number; reason: string } | undefined }> {
  const raw = await openRawSocket(url, key, from);
  try {
    raw.send({ id: 1, method: 'query', params: { path: 'jobs.list', input: {} } });
    const answer = (await raw.waitFor((m) => {
      const w = m as WireError;
      return w.error !== undefined || w.result !== undefined;
    })) as WireError | undefined;
    const close = answer?.error
      ? await Promise.race([
          raw.closedWith,
          new Promise<undefined>((r) => setTimeout(() => r(undefined), 2000)),
        ])
      : undefined;
    return {
      outcome: answer === undefined ? 'NO_ANSWER' : outcomeOf(answer.error?.data?.code),
      status: 0,
      body: JSON.stringify(raw.messages),
      retryAfterMs: answer?.error?.data?.retryAfterMs,
      close,
    };
  } finally {
    raw.close();
  }
}

/** A subscription over a WebSocket: started (admitted) or its error code. */
export async function wsCall(
  url: string,
  path: string,
  key: string | null,
  input: unknown,
): Promise<RawAnswer> {
  const raw = await openRawSocket(url, key);
  try {
    raw.send({ id: 1, method: 'subscription', params: { path, input } });
    const answer = (await raw.waitFor((m) => {
      const w = m as WireError;
      return (w.id === 1 || w.id === null) && (w.error !== undefined || w.result !== undefined);
    })) as WireError | undefined;
    const code = answer?.error?.data?.code;
    return {
      outcome: answer === undefined ? 'NO_ANSWER' : outcomeOf(code),
      status: 0,
      body: JSON.stringify(raw.messages),
    };
  } finally {
    raw.close();
  }
}
