import { existsSync } from 'node:fs';
import { Redis } from 'iovalkey';
import { describe, expect, test } from 'vitest';
import { pingRedis, startRedisServer } from './start-redis-server.js';

function client(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
  redis.on('error', () => {
    // reconnects after restart() are expected
  });
  return redis;
}

describe('startRedisServer', () => {
  test('starts on a private port with its own dir and pid, and stops', async () => {
    const server = await startRedisServer();
    expect(server.port).not.toBe(6379);
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(server.pid).toBeGreaterThan(0);
    expect(await pingRedis(server.port)).toBe(true);
    await server.stop();
    expect(await pingRedis(server.port)).toBe(false);
    await server[Symbol.asyncDispose]();
  });

  test('two servers in parallel get different ports and pids', async () => {
    await using a = await startRedisServer();
    await using b = await startRedisServer();
    expect(a.port).not.toBe(b.port);
    expect(a.pid).not.toBe(b.pid);
    expect(a.dir).not.toBe(b.dir);
  });

  test("restart with persistence 'none' loses the data, on the same port", async () => {
    await using server = await startRedisServer();
    const redis = client(server.url);
    try {
      await redis.set('k', 'v');
      const oldPid = server.pid;
      await server.restart();
      expect(server.pid).not.toBe(oldPid);
      expect(await redis.get('k')).toBeNull();
    } finally {
      redis.disconnect();
    }
  });

  test("restart with persistence 'aof' keeps an fsynced write after SIGKILL", async () => {
    await using server = await startRedisServer({ persistence: 'aof' });
    const redis = client(server.url);
    try {
      await redis.set('k', 'v');
      // appendfsync everysec: wait past one fsync before the crash
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      await server.restart();
      expect(await redis.get('k')).toBe('v');
      // switching to 'none' on restart drops it
      await server.restart({ persistence: 'none' });
      expect(await redis.get('k')).toBeNull();
    } finally {
      redis.disconnect();
    }
  });

  test('kill() crashes it; dispose removes the dir', async () => {
    const server = await startRedisServer();
    await server.kill();
    expect(await pingRedis(server.port)).toBe(false);
    await server[Symbol.asyncDispose]();
    expect(existsSync(server.dir)).toBe(false);
  });
});

test('a taken port is reported, never mistaken for readiness', async () => {
  await using taken = await startRedisServer();
  await expect(startRedisServer({ port: taken.port })).rejects.toThrow(/address already in use/i);
});
