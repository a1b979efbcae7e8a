// Row 8's clients: N WebSocket connections to one gateway, each with one `jobs.watch`
// subscription, spoken as raw tRPC-over-WebSocket frames on `ws` sockets. That is the cheapest
// client per connection (no tRPC client, links or observables per socket), so the figure is the
// gateway's, not the clients'. Each socket records the monotonic time its job's first new event
// (sequence 3, after the backfilled `accepted` and `queued`) arrives. One long-lived process
// serves every run of the suite (`open` … `collect`, then `reset`).
import { WebSocket } from 'ws';
import { monoMs } from '../harness/clock.js';
import type { CreateService } from '../harness/service.js';

/** Sockets opened at once while connecting (a burst of 1,000 handshakes is not the workload). */
const OPEN_PARALLEL = 50;
const OPEN_TIMEOUT_MS = 60_000;

interface Frame {
  id?: number;
  result?: { type: string; data?: { id?: string; data?: { seq?: number } } };
  error?: { message?: string };
}

export const createService: CreateService = async () => {
  let sockets: WebSocket[] = [];
  let arrivals = new Map<string, number>();
  let firstError: string | undefined;
  let onArrival: (() => void) | undefined;

  /** Opens one socket and subscription; resolves once the backfill reached `queued` (seq 2). */
  function watch(wsUrl: string, apiKey: string, jobId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${wsUrl}?connectionParams=1`);
      sockets.push(ws);
      let live = false;
      ws.on('open', () => {
        ws.send(JSON.stringify({ method: 'connectionParams', data: { apiKey } }));
        ws.send(
          JSON.stringify({
            id: 1,
            method: 'subscription',
            params: { path: 'jobs.watch', input: { id: jobId } },
          }),
        );
      });
      ws.on('message', (raw: Buffer) => {
        const at = monoMs();
        const text = raw.toString('utf8');
        // tRPC's keep-alive: the gateway pings idle sockets and drops those that do not answer.
        if (text === 'PING') return ws.send('PONG');
        if (text === 'PONG') return;
        let frame: Frame;
        try {
          frame = JSON.parse(text) as Frame;
        } catch {
          firstError ??= `unexpected frame ${text.slice(0, 40)}`;
          return;
        }
        if (frame.error) {
          firstError ??= frame.error.message ?? 'subscription error';
          reject(new Error(firstError));
          return;
        }
        const seq = frame.result?.data?.data?.seq;
        if (seq === undefined) return;
        if (seq <= 2) {
          if (seq === 2 && !live) {
            live = true;
            resolve();
          }
          return;
        }
        if (!arrivals.has(jobId)) {
          arrivals.set(jobId, at);
          onArrival?.();
        }
      });
      ws.on('error', (error) => reject(error));
      ws.on('close', (code) => {
        if (!live) reject(new Error(`socket closed before the backfill (${code})`));
      });
    });
  }

  return {
    info: { pid: process.pid },
    methods: {
      async open(args) {
        const { ids, wsUrl, apiKey } = args as { ids: string[]; wsUrl: string; apiKey: string };
        const t0 = monoMs();
        let next = 0;
        const lane = async () => {
          while (next < ids.length) await watch(wsUrl, apiKey, ids[next++] as string);
        };
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.all(Array.from({ length: OPEN_PARALLEL }, lane)),
          new Promise((_, reject) => {
            timer = setTimeout(
              () => reject(new Error('opening watchers timed out')),
              OPEN_TIMEOUT_MS,
            );
          }),
        ]).finally(() => clearTimeout(timer));
        return { sockets: sockets.length, openMs: monoMs() - t0 };
      },
      async collect(args) {
        const { expect, timeoutMs } = args as { expect: number; timeoutMs: number };
        if (arrivals.size < expect) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, timeoutMs);
            onArrival = () => {
              if (arrivals.size >= expect) {
                clearTimeout(timer);
                resolve();
              }
            };
          });
        }
        onArrival = undefined;
        return { arrivals: Object.fromEntries(arrivals), error: firstError ?? null };
      },
      reset() {
        for (const ws of sockets) ws.terminate();
        sockets = [];
        arrivals = new Map();
        firstError = undefined;
        onArrival = undefined;
        return Promise.resolve(null);
      },
    },
    close() {
      for (const ws of sockets) ws.terminate();
      return Promise.resolve();
    },
  };
};
