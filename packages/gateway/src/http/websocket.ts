// WebSocket subscriptions on the gateway's own port: `ws` in noServer mode, tRPC's handler, and
// the `upgrade` routing that serve() wires to the HTTP server. Guards, in order:
//   - only `/ws` upgrades; a browser Origin outside the allow-list gets 403 before the upgrade;
//   - `maxPayload` (64 KiB) caps every frame;
//   - the tRPC context needs `connectionParams.apiKey` (context.ts) or the socket is closed; the
//     login counts against the gatekeeper's failed-auth limits like an HTTP call, and past them
//     the error frame (TOO_MANY_REQUESTS, `data.retryAfterMs`) is followed by close code 4429
//     with the reason `retry after <n> s`;
//   - a socket that never authenticates within the handshake timeout (5 s) is closed;
//   - at most `socketsPerKey` open sockets per API key;
//   - open sockets are re-verified periodically: a revoked key's sockets are closed (4403).
//     Subscriptions on them end sooner, through the gatekeeper's stream watch (procedures.ts).
//
// This folder guards the Node server's wire (create-gateway.ts mounts both, serve.ts routes the
// upgrades): these upgrades, the tRPC request-size limit (request-limit.ts), and the tests of what
// clients send over it (slow clients, malformed frames, bad-input fuzz).

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_BATCH_CALLS, WS_PATH } from '@sluice/contracts';
import type { AnyRouter } from '@trpc/server';
import { applyWSSHandler } from '@trpc/server/adapters/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { SluiceError } from '@sluice/contracts';
import { retryAfterSeconds } from '../auth/admit-http.js';
import type { ApiKeyAuth } from '../auth/api-key-auth.js';
import type { Gatekeeper } from '../auth/gatekeeper.js';
import { createOriginCheck } from '../auth/origin.js';
import { createWsContextFactory } from '../trpc/context.js';
import type { GatewayLogger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';

export interface WebSocketOptions {
  /** Close sockets that have not authenticated after this long (default 5000 ms). */
  handshakeTimeoutMs?: number;
  /** Largest accepted frame (default 64 KiB). */
  maxPayload?: number;
  /**
   * Accept a browser page served by the gateway itself, judged by the address the connection
   * arrived at, never the Host header (default true).
   */
  allowSameOrigin?: boolean;
  /** Ping idle sockets this often; a socket that does not answer is dropped (default 30 s). */
  pingMs?: number;
  /** How often open sockets' keys are re-verified (default 2000 ms; 0 turns it off). */
  recheckMs?: number;
}

export interface WebSocketEndpoint {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open sockets now. */
  count(): number;
  /** Drops every socket at once (clients reconnect and resume from their last event id). */
  terminateAll(): void;
  close(): Promise<void>;
}

interface Deps {
  router: AnyRouter;
  /** Re-verifies open sockets' keys (revocation). */
  auth: ApiKeyAuth;
  /** Authenticates each login, throttling failures like every other entry point. */
  gate: Pick<Gatekeeper, 'authenticate'>;
  socketsPerKey: number;
  origins: readonly string[];
  metrics: GatewayMetrics;
  logger: GatewayLogger;
  options: WebSocketOptions;
}

/** The close code of a login refused for too many failed authentications (HTTP's 429). */
export const WS_CLOSE_RATE_LIMITED = 4429;

/** The reject label of a malformed frame from a client. */
export const CLIENT_PROTOCOL_ERROR = 'CLIENT_PROTOCOL_ERROR';

/** `ws` names each protocol violation by a `WS_ERR_*` code on the error it emits. */
export function isClientProtocolError(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('WS_ERR_');
}

function refuse(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  socket.destroy();
}

export function createWebSocketEndpoint(deps: Deps): WebSocketEndpoint {
  const handshakeMs = deps.options.handshakeTimeoutMs ?? 5000;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: deps.options.maxPayload ?? 65_536,
  });
  const originAllowed = createOriginCheck({
    allow: deps.origins,
    sameOrigin: deps.options.allowSameOrigin ?? true,
  });
  // Authenticated sockets and their keys, for the handshake timer and the revocation re-check.
  const authenticated = new Map<WebSocket, string>();

  // Registered before tRPC's listener, so the timer exists before any context is created.
  wss.on('connection', (socket: WebSocket) => {
    const timer = setTimeout(() => {
      if (!authenticated.has(socket)) socket.close(4401, 'authentication timeout');
    }, handshakeMs);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      authenticated.delete(socket);
    });
  });
  const handler = applyWSSHandler({
    wss,
    router: deps.router,
    createContext: createWsContextFactory(deps.gate, {
      onAuthenticated(socket, apiKey) {
        const ws = socket as WebSocket;
        if (authenticated.has(ws)) return true;
        let sameKey = 0;
        for (const key of authenticated.values()) if (key === apiKey) sameKey++;
        if (sameKey >= deps.socketsPerKey) return false;
        if (ws.readyState === ws.OPEN) authenticated.set(ws, apiKey);
        return true;
      },
      onRateLimited(socket, error: SluiceError) {
        // Queued now, so it runs after the adapter has sent the error frame and before its own
        // plain close: the client reads the wait from the close reason as well.
        const reason = `retry after ${retryAfterSeconds(error.details)} s`;
        setImmediate(() => (socket as WebSocket).close(WS_CLOSE_RATE_LIMITED, reason));
      },
    }),
    maxBatchSize: MAX_BATCH_CALLS,
    keepAlive: { enabled: true, pingMs: deps.options.pingMs ?? 30_000, pongWaitMs: 5000 },
    onError: ({ error }) => {
      // A frame `ws` refuses (bad opcode, unmasked, invalid UTF-8, too large) reaches tRPC as an
      // unknown error: it is the client's fault, counted and logged as such.
      if (isClientProtocolError(error.cause)) {
        deps.metrics.reject(CLIENT_PROTOCOL_ERROR);
        deps.logger.warn('client protocol error', {
          code: (error.cause as unknown as { code: string }).code,
        });
        return;
      }
      deps.metrics.reject(error.code);
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        deps.logger.error('subscription failed', { error: error.cause ?? error });
      }
    },
  });

  // One verification per distinct key per round (through the auth cache, so at most one query
  // per key per cache TTL).
  async function recheck(): Promise<void> {
    const byKey = new Map<string, WebSocket[]>();
    for (const [socket, key] of authenticated) byKey.set(key, [...(byKey.get(key) ?? []), socket]);
    for (const [key, sockets] of byKey) {
      if (await deps.auth.verify(key)) continue;
      for (const socket of sockets) socket.close(4403, 'API key revoked');
    }
  }
  const recheckMs = deps.options.recheckMs ?? 2000;
  let rechecking = false;
  const recheckTimer =
    recheckMs > 0
      ? setInterval(() => {
          if (rechecking || authenticated.size === 0) return;
          rechecking = true;
          recheck()
            .catch((error: unknown) => deps.logger.error('socket re-check failed', { error }))
            .finally(() => (rechecking = false));
        }, recheckMs)
      : undefined;
  recheckTimer?.unref();

  return {
    handleUpgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (path !== WS_PATH) {
        refuse(socket, '404 Not Found');
        return;
      }
      const local = {
        address: req.socket.localAddress,
        port: req.socket.localPort,
        // A TLS socket (an https server handing its upgrades here) serves `https:` pages.
        secure: (req.socket as { encrypted?: boolean }).encrypted === true,
      };
      if (!originAllowed(req.headers.origin, local)) {
        deps.metrics.reject('FORBIDDEN');
        refuse(socket, '403 Forbidden');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    count: () => wss.clients.size,
    terminateAll() {
      for (const client of wss.clients) client.terminate();
    },
    async close() {
      clearInterval(recheckTimer);
      handler.broadcastReconnectNotification();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
