// The fake paid provider as an in-process node:http server. main.ts runs the same server as its
// own OS process, which is how retry-safety suites use it (billing evidence outlives the caller).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFakeProviderClient, type FakeProviderClient } from './fake-provider-client.js';
import { FaultRuleError, parseFaultRules } from './faults.js';
import { BadRequestError, readJsonBody, sendJson } from './http-io.js';
import { createLedger, summarizeLedger } from './ledger.js';
import { handleBillable, handlePoll } from './provider-routes.js';
import { createProviderState, type ProviderState } from './provider-state.js';
import { FAKE_PROVIDER_PATHS } from './types.js';

export const DEFAULT_ASYNC_DELAY_MS = 50;

export interface FakeProviderServerOptions {
  ledgerPath: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** 127.0.0.1 by default. */
  host?: string;
  /** How long an async job stays `running` before it ends; default 50 ms. */
  asyncDelayMs?: number;
}

/** The admin client methods work in-process too (over loopback HTTP), like the spawned variant. */
export interface FakeProviderServer extends FakeProviderClient {
  readonly ledgerPath: string;
  /** Direct access for in-process tests; remote callers use the admin API. */
  readonly state: ProviderState;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const POLL_PATH = /^\/v1\/async\/jobs\/([^/]+)$/;

async function handleAdmin(
  state: ProviderState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const route = `${req.method ?? 'GET'} ${path}`;
  switch (route) {
    case 'GET /admin/ledger':
      return sendJson(res, 200, state.ledger.records());
    case 'GET /admin/summary':
      return sendJson(res, 200, summarizeLedger(state.ledger.records()));
    case 'GET /admin/faults':
      return sendJson(res, 200, state.faults.list());
    case 'POST /admin/faults':
      // Replaces the armed rules; a bad payload changes nothing.
      state.faults.set(parseFaultRules(await readJsonBody(req)));
      return sendJson(res, 200, state.faults.list());
    case 'DELETE /admin/faults':
      state.faults.clear();
      res.writeHead(204).end();
      return;
    case 'POST /admin/reset':
      state.reset();
      res.writeHead(204).end();
      return;
    default:
      return sendJson(res, 404, { error: `no route ${route}` });
  }
}

async function route(
  state: ProviderState,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://fake-provider').pathname;
  const method = req.method ?? 'GET';
  if (path === '/healthz') return sendJson(res, 200, { ok: true });
  if (path.startsWith('/admin/')) return handleAdmin(state, req, res, path);
  if (method === 'POST' && path === FAKE_PROVIDER_PATHS.sync)
    return handleBillable(state, 'sync', req, res);
  if (method === 'POST' && path === FAKE_PROVIDER_PATHS.async)
    return handleBillable(state, 'async', req, res);
  if (method === 'POST' && path === FAKE_PROVIDER_PATHS.safe)
    return handleBillable(state, 'safe', req, res);
  const poll = method === 'GET' ? POLL_PATH.exec(path) : null;
  if (poll?.[1]) return handlePoll(state, decodeURIComponent(poll[1]), req, res);
  sendJson(res, 404, { error: `no route ${method} ${path}` });
}

export async function createFakeProviderServer(
  options: FakeProviderServerOptions,
): Promise<FakeProviderServer> {
  const ledger = createLedger(options.ledgerPath);
  const state = createProviderState(ledger, options.asyncDelayMs ?? DEFAULT_ASYNC_DELAY_MS);
  const server = createServer((req, res) => {
    route(state, req, res).catch((error: unknown) => {
      if (error instanceof BadRequestError || error instanceof FaultRuleError) {
        return sendJson(res, 400, { error: error.message });
      }
      // The caller hung up mid-body (or close() cut it): nothing to answer, nothing was billed.
      if (res.destroyed) return;
      // A ledger write that fails must be loud: the evidence would otherwise be silently wrong.
      console.error('fake-provider: request failed', error);
      sendJson(res, 500, { error: 'fake provider bug', detail: String(error) });
    });
  });
  const host = options.host ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    ledger.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      state.shutdown();
      server.close(() => {
        ledger.close();
        resolve();
      });
      server.closeAllConnections();
    });
    return closing;
  };
  return {
    ...createFakeProviderClient(`http://${host}:${port}`),
    ledgerPath: options.ledgerPath,
    state,
    close,
    [Symbol.asyncDispose]: close,
  };
}
