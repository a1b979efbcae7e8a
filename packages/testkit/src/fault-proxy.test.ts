import { once } from 'node:events';
import net from 'node:net';
import { Redis } from 'iovalkey';
import { expect, test } from 'vitest';
import { faultProxy } from './fault-proxy.js';
import { startRedisServer } from './start-redis-server.js';

/** A raw RESP connection: replies are never matched to the wrong command, unlike a client. */
async function rawConnection(port: number) {
  const socket = net.connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => undefined);
  return {
    socket,
    /** Sends PING and returns what came back within `ms`. */
    async ping(ms = 300): Promise<string> {
      received = '';
      socket.write('PING\r\n');
      const deadline = Date.now() + ms;
      while (!received.includes('\r\n') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return received;
    },
  };
}

test('blackhole stops a PING reply on an open connection; heal restores it', async () => {
  await using server = await startRedisServer();
  await using proxy = await faultProxy({ host: server.host, port: server.port });
  const conn = await rawConnection(proxy.port);
  try {
    expect(await conn.ping()).toBe('+PONG\r\n');
    proxy.blackhole();
    expect(await conn.ping()).toBe('');
    expect(proxy.connections()).toBe(1); // half-open: the socket stays up
    proxy.heal();
    expect(await conn.ping()).toBe('+PONG\r\n'); // the dropped PING never reached Redis
  } finally {
    conn.socket.destroy();
  }
});

test('delay adds latency; resetAll gives the client ECONNRESET and the proxy keeps serving', async () => {
  await using server = await startRedisServer();
  await using proxy = await faultProxy({ host: server.host, port: server.port });
  const redis = new Redis(proxy.url('redis'), { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
  const errors: string[] = [];
  redis.on('error', (error: Error) => errors.push(error.message));
  try {
    expect(await redis.ping()).toBe('PONG');
    proxy.delay(200);
    const started = Date.now();
    expect(await redis.call('ECHO', 'slow')).toBe('slow');
    expect(Date.now() - started).toBeGreaterThanOrEqual(390); // 200 ms each way
    proxy.heal();
    proxy.resetAll();
    await expect.poll(() => errors.join(' '), { timeout: 5_000 }).toMatch(/ECONNRESET/);
    await expect.poll(() => redis.ping().catch(() => 'down'), { timeout: 5_000 }).toBe('PONG');
  } finally {
    redis.disconnect();
  }
});
