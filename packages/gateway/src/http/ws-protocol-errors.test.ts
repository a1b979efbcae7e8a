// A malformed WebSocket frame is the client's error: counted as CLIENT_PROTOCOL_ERROR and logged
// as a warning, never counted or logged as a server error.

import { describeEachDialect } from '@sluice/storage/testing';
import { waitFor } from '@sluice/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startGateway, type GatewayFixture } from '../testing/fixture.js';

describeEachDialect('WebSocket protocol errors', (ctx) => {
  let f: GatewayFixture;
  const logged = { warn: [] as string[], error: [] as string[] };
  beforeAll(async () => {
    f = await startGateway(ctx(), {
      logger: {
        warn: (msg: string) => void logged.warn.push(msg),
        error: (msg: string) => void logged.error.push(msg),
      },
    });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('counts a malformed frame as a client protocol error, not a server error', async () => {
    const frames = [
      Buffer.from([0x83, 0x80, 0, 0, 0, 0]), // reserved opcode 3
      Buffer.from([0x81, 0x02, 0x68, 0x69]), // an unmasked client frame
      Buffer.from([0x81, 0x82, 0, 0, 0, 0, 0xc3, 0x28]), // invalid UTF-8 text
    ];
    for (const frame of frames) {
      const ws = new WebSocket(`${f.url.replace(/^http/, 'ws')}/ws?connectionParams=1`);
      ws.on('error', () => {});
      await new Promise<void>((resolve) => ws.once('open', () => resolve()));
      ws.send(JSON.stringify({ method: 'connectionParams', data: { apiKey: f.keyA } }));
      const closed = new Promise<number>((resolve) => ws.once('close', (c) => resolve(c)));
      (ws as unknown as { _socket: { write(b: Buffer): void } })._socket.write(frame);
      expect(await closed).toBeGreaterThanOrEqual(1002);
    }
    await waitFor(() => (f.gateway.metrics.rejects.get('CLIENT_PROTOCOL_ERROR') ?? 0) >= 3);
    expect(f.gateway.metrics.rejects.get('INTERNAL_SERVER_ERROR')).toBeUndefined();
    expect(logged.error).toEqual([]);
    expect(logged.warn.filter((m) => m === 'client protocol error')).toHaveLength(3);
  });
});
