// Probes and metrics on a tiny `node:http` server: `/healthz` answers while the process lives,
// `/readyz` is 503 until the worker is ready (and again from the first moment of a drain),
// `/metrics` is the worker's prom-client registry.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProbesOptions {
  /** 0 picks a free port. */
  port: number;
  /** Interface to bind (default: all, so an orchestrator can reach it). */
  hostname?: string | undefined;
  isReady(): boolean;
  /** The Prometheus text (prom-client's `registry.metrics()`, the runtime's figures included). */
  metrics(): Promise<string>;
  /** Its content type (prom-client's `registry.contentType`). */
  contentType: string;
}

export interface ProbesServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

export async function startProbes(opts: ProbesOptions): Promise<ProbesServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
    switch (path) {
      case '/healthz':
        return send(200, 'ok\n');
      case '/readyz':
        return opts.isReady() ? send(200, 'ready\n') : send(503, 'not ready\n');
      case '/metrics':
        return void opts.metrics().then(
          (text) => send(200, text, opts.contentType),
          (error: unknown) => send(500, `metrics failed: ${String(error)}\n`),
        );
      default:
        return send(404, 'not found\n');
    }
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host =
    !opts.hostname || opts.hostname === '0.0.0.0' || opts.hostname === '::'
      ? '127.0.0.1'
      : opts.hostname;
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
