// Whether a Redis (or Valkey) server answers at a URL: one PING over a fresh TCP (or TLS)
// connection, bounded by a timeout, with no client library and no retry of its own (the wait
// loop retries). Any RESP answer counts, `-NOAUTH` included: the server is there, and the
// runtime's client authenticates; anything else is not a Redis server.

import { createRequire } from 'node:module';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { SluiceError, type RuntimeServiceProbe } from '@sluice/contracts';
// The light subpath: the probe runs before anything else is loaded (storage's root is kysely).
import { requireOptional } from '@sluice/storage/require-optional';

/**
 * The Redis client the runtime will load (an optional peer of this package), resolved from here
 * as it will be: a missing driver is named at once (exit 3), not after the whole wait for a
 * server it could not talk to anyway.
 */
function assertRedisDriver(): void {
  requireOptional(createRequire(import.meta.url), 'iovalkey', 'the valkey-streams runtime');
}

export function redisProbe(url: string, timeoutMs: number): RuntimeServiceProbe {
  assertRedisDriver();
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  const port = Number(parsed.port || 6379);
  const label = `Redis at ${parsed.hostname || '127.0.0.1'}:${port}`;
  return {
    label,
    attempt: () =>
      new Promise<void>((resolve, reject) => {
        const socket: Socket =
          parsed.protocol === 'rediss:'
            ? tlsConnect({ host, port, servername: host })
            : tcpConnect({ host, port });
        const done = (error?: Error) => {
          socket.destroy();
          if (error) reject(error);
          else resolve();
        };
        socket.setTimeout(timeoutMs, () =>
          done(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
        );
        socket.once('error', done);
        socket.once(parsed.protocol === 'rediss:' ? 'secureConnect' : 'connect', () =>
          socket.write('PING\r\n'),
        );
        socket.once('data', (data: Buffer) => {
          const first = data.toString('latin1', 0, 1);
          if (first === '+' || first === '-') return done();
          done(new SluiceError('UNAVAILABLE', `${label} is not a Redis server`));
        });
        socket.once('end', () => done(Object.assign(new Error('closed'), { code: 'ECONNRESET' })));
      }),
  };
}
