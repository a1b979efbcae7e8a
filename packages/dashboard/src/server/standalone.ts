// `sluice dashboard --gateway <url>`: the UI on a server of its own, same-origin with the API by
// proxying: /trpc and /v1 are forwarded to the gateway (bodies and SSE streamed both ways), and a
// WebSocket upgrade on /ws is piped to the gateway's socket byte for byte. The browser's Origin is
// checked HERE (the page must be this server's own), then dropped: the gateway accepts a handshake
// without Origin as it does from Node clients, and would refuse this server's origin otherwise.
import { connect } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { mountDashboard } from './mount.js';

export interface StandaloneOptions {
  /** The gateway's base URL (http://host:port). */
  gateway: string;
  /** 0 picks a free port (default 4100). */
  port?: number;
  /** Default 127.0.0.1. */
  hostname?: string;
  /** The built UI (default this package's dist/web). */
  root?: string;
}

export interface RunningDashboard {
  url: string;
  port: number;
  close(): Promise<void>;
}

const PROXIED = ['/trpc', '/v1'];
/** Hop-by-hop headers a proxy must not forward (RFC 9110 §7.6.1). */
const HOP = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host', 'origin'];

function sameOrigin(req: IncomingMessage, port: number): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    const local = req.socket.localAddress?.replace(/^::ffff:/, '') ?? '';
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const loopback = local === '127.0.0.1' || local === '::1';
    return (
      url.protocol === 'http:' &&
      Number(url.port || 80) === port &&
      (host === local || (loopback && host === 'localhost'))
    );
  } catch {
    return false;
  }
}

function pipeUpgrade(gateway: URL, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const secure = gateway.protocol === 'https:';
  const port = Number(gateway.port || (secure ? 443 : 80));
  // A TLS gateway gets a TLS socket (SNI its name); the browser's side stays this server's own.
  const upstream = secure
    ? connectTls({ port, host: gateway.hostname, servername: gateway.hostname })
    : connect(port, gateway.hostname);
  const lines = [`${req.method} ${req.url} HTTP/1.1`, `host: ${gateway.host}`];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    if (name.toLowerCase() === 'host' || name.toLowerCase() === 'origin') continue;
    lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
  }
  upstream.on(secure ? 'secureConnect' : 'connect', () => {
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) upstream.write(head);
    upstream.pipe(socket).pipe(upstream);
  });
  const end = () => {
    socket.destroy();
    upstream.destroy();
  };
  upstream.on('error', end);
  socket.on('error', end);
  upstream.on('close', end);
  socket.on('close', end);
}

export async function serveDashboard(options: StandaloneOptions): Promise<RunningDashboard> {
  const gateway = new URL(options.gateway);
  if (gateway.protocol !== 'http:' && gateway.protocol !== 'https:') {
    throw new Error(`gateway: "${options.gateway}" is not an http(s) URL`);
  }
  const app = new Hono();
  for (const prefix of PROXIED) {
    app.all(`${prefix}/*`, async (c) => {
      const incoming = new URL(c.req.url);
      const headers = new Headers(c.req.raw.headers);
      for (const h of HOP) headers.delete(h);
      const hasBody = c.req.method !== 'GET' && c.req.method !== 'HEAD';
      const res = await fetch(new URL(incoming.pathname + incoming.search, gateway), {
        method: c.req.method,
        headers,
        redirect: 'manual',
        ...(hasBody ? { body: c.req.raw.body, duplex: 'half' } : {}),
      } as RequestInit);
      const out = new Headers(res.headers);
      out.delete('content-encoding');
      out.delete('content-length');
      return new Response(res.body, { status: res.status, headers: out });
    });
  }
  mountDashboard(app, { path: '/', ...(options.root ? { root: options.root } : {}) });
  const hostname = options.hostname ?? '127.0.0.1';
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 4100, hostname }, () =>
      resolve(s as Server),
    ) as Server;
  });
  const port = (server.address() as AddressInfo).port;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!req.url?.startsWith('/ws') || !sameOrigin(req, port)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\n\r\n');
      return;
    }
    pipeUpgrade(gateway, req, socket, head);
  });
  return {
    url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
