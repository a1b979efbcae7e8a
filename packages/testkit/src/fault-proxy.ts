// Loopback TCP proxy that injects network faults between a client and a real server (pg-boss's
// halfOpenProxy idea applied to Redis). Blackhole keeps both
// sockets open and drops bytes: the half-open connection that makes blocked reads hang, which a
// plain server kill never reproduces.
import net from 'node:net';

export interface FaultProxy extends AsyncDisposable {
  readonly host: string;
  /** The port clients connect to instead of the target's. */
  readonly port: number;
  readonly target: { readonly host: string; readonly port: number };
  /** `<protocol>://127.0.0.1:<port>`, e.g. `proxy.url('redis')`. */
  url(protocol?: string): string;
  /** Connections currently open through the proxy. */
  connections(): number;
  /** Keep connections open but drop every byte in both directions (new connections too). */
  blackhole(): void;
  /** Back to pass-through, no delay. Bytes dropped while blackholed stay lost. */
  heal(): void;
  /** Add `ms` of latency to every chunk in both directions, order preserved (0 turns it off). */
  delay(ms: number): void;
  /** Reset every open connection (clients see ECONNRESET); the proxy keeps listening. */
  resetAll(): void;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

type Mode = 'pass' | 'blackhole';

export async function faultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  let mode: Mode = 'pass';
  let delayMs = 0;
  const pairs = new Set<[net.Socket, net.Socket]>();

  const server = net.createServer((down) => {
    const up = net.connect({ host: target.host, port: target.port });
    const pair: [net.Socket, net.Socket] = [down, up];
    pairs.add(pair);
    const pipe = (from: net.Socket, to: net.Socket) => {
      let lastDue = 0; // keeps chunks in order when the delay changes mid-stream
      from.on('data', (chunk: Buffer) => {
        if (mode === 'blackhole') return;
        if (delayMs === 0 && lastDue <= Date.now()) {
          to.write(chunk);
          return;
        }
        const due = Math.max(Date.now() + delayMs, lastDue);
        lastDue = due;
        setTimeout(() => {
          if (mode !== 'blackhole' && !to.destroyed) to.write(chunk);
        }, due - Date.now());
      });
    };
    pipe(down, up);
    pipe(up, down);
    const end = () => {
      down.destroy();
      up.destroy();
      pairs.delete(pair);
    };
    for (const socket of pair) {
      socket.on('close', end);
      socket.on('error', end);
    }
  });

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
  });

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      for (const [down, up] of pairs) {
        down.destroy();
        up.destroy();
      }
      pairs.clear();
      server.close(() => resolve());
    });
    return closed;
  };

  return {
    host: '127.0.0.1',
    port,
    target: { host: target.host, port: target.port },
    url: (protocol = 'redis') => `${protocol}://127.0.0.1:${port}`,
    connections: () => pairs.size,
    blackhole: () => {
      mode = 'blackhole';
    },
    heal: () => {
      mode = 'pass';
      delayMs = 0;
    },
    delay: (ms) => {
      delayMs = Math.max(0, ms);
    },
    resetAll: () => {
      for (const [down, up] of pairs) {
        down.resetAndDestroy();
        up.resetAndDestroy();
      }
      pairs.clear();
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
