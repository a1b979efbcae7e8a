// Runs a gateway on Node: Hono through @hono/node-server, and WebSocket upgrades routed to the
// gateway's endpoint on the same port (we pass no `websocket` option to node-server, so our
// `upgrade` listener is the only one).

import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve as nodeServe } from '@hono/node-server';
import type { JobRegistry } from '@sluice/contracts';
import type { Gateway } from './create-gateway.js';

export interface ServeOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default 127.0.0.1; `0.0.0.0` to listen on every interface. */
  hostname?: string;
  /** A client must send its request headers within this (default 10 000 ms). */
  headersTimeoutMs?: number;
  /**
   * A client must send its whole request, body included, within this (default 60 000 ms; Node's
   * own default is 5 minutes). Uploads slower than this need it raised. A stalled upload is cut
   * sooner by the upload idle timeout (`uploads.idleMs`).
   */
  requestTimeoutMs?: number;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export interface RunningGateway {
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Stops accepting, drops open sockets, closes the gateway (not the database). */
  close(): Promise<void>;
}

export async function serve<R extends JobRegistry>(
  gateway: Gateway<R>,
  options: ServeOptions,
): Promise<RunningGateway> {
  const hostname = options.hostname ?? '127.0.0.1';
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(
    options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    headersTimeout,
  );
  const serverOptions = {
    headersTimeout,
    requestTimeout,
    // Node checks both timeouts on this interval (default 30 s): check often enough that a slow
    // client is cut within about a second of its deadline.
    connectionsCheckingInterval: Math.min(1000, headersTimeout),
  };
  const server = await new Promise<Server>((resolve, reject) => {
    const s = nodeServe(
      { fetch: gateway.app.fetch, port: options.port, hostname, serverOptions },
      () => resolve(s as Server),
    ) as Server;
    s.once('error', reject);
  });
  server.on('upgrade', (req, socket, head) => gateway.websocket.handleUpgrade(req, socket, head));
  const port = (server.address() as AddressInfo).port;
  const host = hostname.includes(':')
    ? `[${hostname}]`
    : hostname === '0.0.0.0'
      ? '127.0.0.1'
      : hostname;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    server,
    close() {
      closed ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await gateway.close();
        server.closeAllConnections();
        await stopped;
      })();
      return closed;
    },
  };
}

/** Serves `gateway.metricsApp` (`/metrics`, unauthenticated) on its own, private listener. */
export async function serveMetrics<R extends JobRegistry>(
  gateway: Gateway<R>,
  options: { port: number; hostname?: string },
): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const hostname = options.hostname ?? '127.0.0.1';
  const server = await new Promise<Server>((resolve, reject) => {
    const s = nodeServe({ fetch: gateway.metricsApp.fetch, port: options.port, hostname }, () =>
      resolve(s as Server),
    ) as Server;
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${hostname === '0.0.0.0' ? '127.0.0.1' : hostname}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
