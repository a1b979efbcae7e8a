// The command connection across a network that drops bytes (a fault proxy's blackhole), against a
// real redis-server. Catches a connection opened during the blackhole being used as if healthy:
// its first command is lost, and once the network heals every later reply answers the command
// before it (a stream read handed an XAUTOCLAIM reply) until something times out.

import { faultProxy, startRedisServer, type FaultProxy, type RedisServer } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createValkeyConnections } from './create-valkey-connections.js';

let server: RedisServer;
let proxy: FaultProxy;

beforeAll(async () => {
  server = await startRedisServer({ persistence: 'none' });
  proxy = await faultProxy({ host: server.host, port: server.port });
});
afterAll(async () => {
  await proxy?.close();
  await server?.stop();
});

it('a connection opened while bytes are dropped never answers a command with another command’s reply', async () => {
  const direct = createValkeyConnections({ url: server.url });
  await direct.commands.xaddMany([
    { stream: 'one', fields: ['n', '1'] },
    { stream: 'two', fields: ['n', '1'] },
    { stream: 'two', fields: ['n', '2'] },
  ]);
  await direct.close();

  proxy.blackhole();
  // The client connects through the proxy: TCP succeeds, the bytes go nowhere.
  const conns = createValkeyConnections({
    url: proxy.url('redis'),
    commandTimeoutMs: 10_000,
    readyWaitMs: 500,
  });
  try {
    const first = conns.commands.xlen('one');
    first.catch(() => {});
    await new Promise((r) => setTimeout(r, 150));
    proxy.heal();
    const second = conns.commands.xlen('two');
    // Out of step, `first` would get `second`'s reply (2) and `second` would wait 10 s.
    expect(await Promise.all([first, second])).toEqual([1, 2]);
  } finally {
    await conns.close();
  }
});
