// Restate child: the service `bench` with one handler, served by the SDK's endpoint handler on an
// HTTP/2 server (Restate's bidirectional protocol) that the parent registers as a deployment. The
// handler's first line is the harness hook, then one no-op `ctx.run` (a journal entry the server
// acknowledges once logged: Restate's durable step). Invocations that arrive before `go` are held
// at the door (discovery is not). An invocation is reported when its handler returns; the
// parent's settle step waits for the server to record its completion. The producer sends one
// invocation per request through the ingress.
import http2 from 'node:http2';
import * as restate from '@restatedev/restate-sdk';
import type { CreateConsumer, CreateProducer, JobPayload } from '../adapter.js';
import { ingressSender } from '../durable/restate-client.js';
import { parseRestateConfig, RESTATE_SERVICE } from '../durable/restate-config.js';

/**
 * Warnings and errors only (the SDK's per-invocation info lines would cost more than the jobs),
 * and none once the run closes: a capped run's invocations still in flight end with the sessions.
 */
function quietLogger(closing: () => boolean): restate.LoggerTransport {
  return (params, message, ...rest) => {
    const level = String(params.level);
    // The endpoint is reachable from 127.0.0.1 only: the request-signature notice is noise here.
    if (String(message).startsWith('Accepting requests without validating')) return;
    if ((level === 'warn' || level === 'error') && !closing())
      console.error(`restate sdk ${level}:`, message, ...rest);
  };
}

export const createConsumer: CreateConsumer = async (init, hooks) => {
  const cfg = parseRestateConfig(init.config);
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const service = restate.service({
    name: RESTATE_SERVICE,
    handlers: {
      run: async (ctx: restate.Context, job: JobPayload) => {
        await hooks.handle(job);
        await ctx.run('noop', async () => 1);
        hooks.completed(1);
      },
    },
  });
  let closing = false;
  const handler = restate.createEndpointHandler({
    services: [service],
    logger: quietLogger(() => closing),
  });
  const server = http2.createServer((req, res) => {
    if (req.url.includes('/invoke/')) void gate.then(() => handler(req, res));
    else handler(req, res);
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(cfg.endpointPort, '127.0.0.1', () => resolve());
  });
  return {
    start: () => open(),
    async close() {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
};

export const createProducer: CreateProducer = async (init) => {
  const cfg = parseRestateConfig(init.config);
  const sender = ingressSender(cfg.ingressUrl);
  return {
    add: (job) => sender.send(job),
    close: async () => sender.close(),
  };
};
